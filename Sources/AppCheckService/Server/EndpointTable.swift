import AppCheckMessages
import Tokens

/// Every RPC attestd knows, each with the endpoint that serves it. The switch is exhaustive, so a new RPC in
/// `Protos/` cannot be forgotten here.
enum EndpointTable {
    struct Dependencies {
        let apps: AppRegistry
        let challenges: ChallengeCodec
        let health: HealthState
    }

    static func endpoints(_ dependencies: Dependencies) -> [RPCEndpoint] {
        AppCheckRPC.allCases.map { rpc in
            switch rpc {
            case .generateAppAttestChallenge:
                RPCEndpoint(rpc.method, GenerateChallengeHandler(apps: dependencies.apps, challenges: dependencies.challenges))
            case .healthCheck:
                RPCEndpoint(rpc.method, HealthCheckHandler(health: dependencies.health, services: servedServices))
            case .exchangeSafetyNetToken, .exchangeRecaptchaV3Token, .exchangeRecaptchaEnterpriseToken,
                 .generatePlayIntegrityChallenge, .exchangePlayIntegrityToken:
                .unimplemented(rpc.method, reason: "\(rpc.rawValue) is not served: attestd serves Apple's providers only.")
            case .getPublicJwkSet, .exchangeDeviceCheckToken, .exchangeCustomToken, .exchangeDebugToken,
                 .exchangeAppAttestAttestation, .exchangeAppAttestAssertion, .verifyAppCheckToken,
                 .queryTwoBits, .updateTwoBits, .getAttestedKey, .revokeAttestedKey:
                .unimplemented(rpc.method, reason: "\(rpc.rawValue) is not available in this version of attestd yet.")
            }
        }
    }

    /// The services a health check may name.
    static let servedServices: Set<String> = Set(AppCheckRPC.allCases.map(\.service))
}
