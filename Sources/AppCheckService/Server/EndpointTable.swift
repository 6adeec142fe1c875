import AppCheckMessages
import Tokens

/// Every RPC attestd knows, each with the endpoint that serves it. The switch is exhaustive, so a new RPC in
/// `Protos/` cannot be forgotten here.
enum EndpointTable {
    struct Dependencies {
        let exchange: ExchangeContext
        let health: HealthState
        let signingKeys: SigningKeySet
        let customTokenVerifiers: [String: CustomTokenVerifier]
        let admin: AdminCredential
        let deviceCheck: DeviceCheckClients
        let gateway: GatewayAuthorizer?
    }

    static func endpoints(_ dependencies: Dependencies) -> [RPCEndpoint] {
        let exchange = dependencies.exchange
        let gateway = dependencies.gateway.map { [EnvoyCheckHandler.endpoint($0)] } ?? []
        return gateway + AppCheckRPC.allCases.map { rpc in
            switch rpc {
            case .generateAppAttestChallenge:
                RPCEndpoint(rpc.method, GenerateChallengeHandler(apps: exchange.apps, challenges: exchange.challenges))
            case .exchangeAppAttestAttestation:
                RPCEndpoint(rpc.method, ExchangeAttestationHandler(exchange: exchange))
            case .exchangeAppAttestAssertion:
                RPCEndpoint(rpc.method, ExchangeAssertionHandler(exchange: exchange))
            case .exchangeDebugToken:
                RPCEndpoint(rpc.method, ExchangeDebugTokenHandler(exchange: exchange))
            case .exchangeCustomToken:
                RPCEndpoint(rpc.method, ExchangeCustomTokenHandler(exchange: exchange, verifiers: dependencies.customTokenVerifiers))
            case .verifyAppCheckToken:
                RPCEndpoint(rpc.method, VerifyAppCheckTokenHandler(exchange: exchange))
            case .getPublicJwkSet:
                // Firebase: the JWKS must not be cached longer than 6 hours.
                RPCEndpoint(rpc.method, JWKSHandler(keys: dependencies.signingKeys),
                            restHeaders: [("cache-control", "public, max-age=21600")])
            case .healthCheck:
                RPCEndpoint(rpc.method, HealthCheckHandler(
                    health: dependencies.health, services: servedServices.union(gateway.map(\.method.path.service))))
            case .exchangeSafetyNetToken, .exchangeRecaptchaV3Token, .exchangeRecaptchaEnterpriseToken,
                 .generatePlayIntegrityChallenge, .exchangePlayIntegrityToken:
                .unimplemented(rpc.method, reason: "\(rpc.rawValue) is not served: attestd serves Apple's providers only.")
            case .getAttestedKey:
                RPCEndpoint(rpc.method, GetAttestedKeyHandler(exchange: exchange, admin: dependencies.admin))
            case .revokeAttestedKey:
                RPCEndpoint(rpc.method, RevokeAttestedKeyHandler(exchange: exchange, admin: dependencies.admin))
            case .exchangeDeviceCheckToken:
                RPCEndpoint(rpc.method, ExchangeDeviceCheckHandler(exchange: exchange, deviceCheck: dependencies.deviceCheck))
            case .queryTwoBits:
                RPCEndpoint(rpc.method, QueryTwoBitsHandler(exchange: exchange, deviceCheck: dependencies.deviceCheck))
            case .updateTwoBits:
                RPCEndpoint(rpc.method, UpdateTwoBitsHandler(exchange: exchange, deviceCheck: dependencies.deviceCheck))
            }
        }
    }

    /// The services a health check may name.
    static let servedServices: Set<String> = Set(AppCheckRPC.allCases.map(\.service))
}
