/// The App Attest environment a simulated device attests in. Raw values match attestd's own
/// `AppAttestEnvironment`, so `AppAttestEnvironment(rawValue: simulated.rawValue)` converts.
public enum SimulatedEnvironment: String, Sendable, CaseIterable {
    case production
    case development

    /// The 16-byte aaguid Apple writes: `appattest` and seven zero bytes, or `appattestdevelop`.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }

    /// The receipt's field 7: `production` or `sandbox`.
    public var receiptEnvironment: String {
        switch self {
        case .production: "production"
        case .development: "sandbox"
        }
    }
}
