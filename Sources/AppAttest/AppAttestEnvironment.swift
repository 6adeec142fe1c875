/// The App Attest environment a key was attested in, told apart by the aaguid of the authenticator data.
public enum AppAttestEnvironment: String, Sendable, CaseIterable {
    case production
    case development

    /// The 16-byte aaguid Apple writes for this environment: `appattest` and seven zero bytes, or `appattestdevelop`.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }

    /// The environment whose aaguid is exactly `aaguid` (all 16 bytes compared), or nil.
    public init?(aaguid: some Collection<UInt8>) {
        guard let match = Self.allCases.first(where: { $0.aaguid.elementsEqual(aaguid) }) else { return nil }
        self = match
    }

    /// The attested environments a server configured for `self` accepts: production only accepts production keys;
    /// development accepts both (a developer may run a TestFlight or App Store build against a development server).
    public var acceptedKeyEnvironments: Set<AppAttestEnvironment> {
        switch self {
        case .production: [.production]
        case .development: [.production, .development]
        }
    }
}
