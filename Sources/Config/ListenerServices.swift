package import AppCheckMessages

/// What a listener serves. Devices call the public surface; the app's backends, gateways and Prometheus call the
/// internal one. A listener that names neither a role nor services serves everything (one port for development).
///
/// A request for something its listener does not serve gets the answer of an unknown method (gRPC UNIMPLEMENTED,
/// HTTP 404), so a public port does not even reveal that the internal RPCs exist.
public struct ListenerServices: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// GenerateAppAttestChallenge and the Exchange* RPCs (those attestd refuses as unimplemented too).
    public static let exchange = ListenerServices(rawValue: 1 << 0)
    /// The token-signing keys: GetPublicJwkSet, `GET /v1/jwks`.
    public static let jwks = ListenerServices(rawValue: 1 << 1)
    /// `grpc.health.v1.Health/Check` and `GET /healthz`.
    public static let health = ListenerServices(rawValue: 1 << 2)
    /// VerifyAppCheckToken (replay protection for limited-use tokens).
    public static let verify = ListenerServices(rawValue: 1 << 3)
    /// `attestd.v1.DeviceStateService`: a device's two bits.
    public static let deviceState = ListenerServices(rawValue: 1 << 4)
    /// `attestd.v1.KeyService`: reading and revoking attested keys.
    public static let keys = ListenerServices(rawValue: 1 << 5)
    /// Envoy's ext_authz `Check` and nginx's `auth_request` endpoint.
    public static let gateway = ListenerServices(rawValue: 1 << 6)
    /// `GET /metrics`.
    public static let metrics = ListenerServices(rawValue: 1 << 7)

    /// What devices call. Health is on every role: a load balancer probes whichever port it fronts.
    public static let publicRole: ListenerServices = [.exchange, .jwks, .health]
    /// What backends, gateways and Prometheus call.
    public static let internalRole: ListenerServices = [.verify, .deviceState, .keys, .gateway, .metrics, .health]
    public static let all: ListenerServices = [.publicRole, .internalRole]

    /// The names used in the configuration's `listeners[].services`, one per member.
    public static let byName: [(name: String, service: ListenerServices)] = [
        ("exchange", .exchange), ("jwks", .jwks), ("health", .health), ("verify", .verify),
        ("deviceState", .deviceState), ("keys", .keys), ("gateway", .gateway), ("metrics", .metrics),
    ]

    /// The names of the members, in configuration order (for the start log).
    public var names: [String] { Self.byName.filter { contains($0.service) }.map(\.name) }
}

extension ListenerServices {
    /// The part of attestd an RPC belongs to. Exhaustive, so a new RPC must be given a listener role.
    package static func serving(_ rpc: AppCheckRPC) -> ListenerServices {
        switch rpc {
        case .generateAppAttestChallenge, .exchangeAppAttestAttestation, .exchangeAppAttestAssertion,
             .exchangeDebugToken, .exchangeCustomToken, .exchangeDeviceCheckToken, .exchangeSafetyNetToken,
             .exchangeRecaptchaV3Token, .exchangeRecaptchaEnterpriseToken, .generatePlayIntegrityChallenge,
             .exchangePlayIntegrityToken:
            .exchange
        case .getPublicJwkSet: .jwks
        case .healthCheck: .health
        case .verifyAppCheckToken: .verify
        case .queryTwoBits, .updateTwoBits: .deviceState
        case .getAttestedKey, .revokeAttestedKey: .keys
        }
    }
}
