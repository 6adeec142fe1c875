import AppCheckMessages
import Config
import Tokens

/// Every RPC attestd knows, each with the endpoint that serves it. The switch is exhaustive, so a new RPC in
/// `Protos/` cannot be forgotten here.
enum EndpointTable {
    struct Dependencies {
        let exchange: ExchangeContext
        let health: HealthState
        let signingKeys: SigningKeySet
        let customTokenVerifiers: [String: CustomTokenVerifier]
        let callers: CallerCredentials
        let deviceCheck: DeviceCheckClients
        let gateway: GatewayAuthorizer?
    }

    static func endpoints(_ dependencies: Dependencies) -> [RPCEndpoint] {
        let exchange = dependencies.exchange
        let callers = dependencies.callers
        let deviceCheck = dependencies.deviceCheck
        let gateway = dependencies.gateway.map { [EnvoyCheckHandler.endpoint($0)] } ?? []
        return gateway + AppCheckRPC.allCases.map { rpc in
            let service = ListenerServices.serving(rpc)
            return switch rpc {
            case .generateAppAttestChallenge:
                RPCEndpoint(rpc.method, GenerateChallengeHandler(apps: exchange.apps, challenges: exchange.challenges, clock: exchange.clock),
                            service: service)
            case .exchangeAppAttestAttestation:
                RPCEndpoint(rpc.method, ExchangeAttestationHandler(exchange: exchange), service: service)
            case .exchangeAppAttestAssertion:
                RPCEndpoint(rpc.method, ExchangeAssertionHandler(exchange: exchange), service: service)
            case .exchangeDebugToken:
                RPCEndpoint(rpc.method, ExchangeDebugTokenHandler(exchange: exchange), service: service)
            case .exchangeCustomToken:
                RPCEndpoint(rpc.method, ExchangeCustomTokenHandler(exchange: exchange, verifiers: dependencies.customTokenVerifiers),
                            service: service)
            case .verifyAppCheckToken:
                RPCEndpoint(rpc.method, VerifyAppCheckTokenHandler(exchange: exchange, callers: callers), service: service)
            case .getPublicJwkSet:
                // Firebase: the JWKS must not be cached longer than 6 hours.
                RPCEndpoint(rpc.method, JWKSHandler(keys: dependencies.signingKeys, clock: exchange.clock), service: service,
                            restHeaders: [("cache-control", "public, max-age=\(JWKSHandler.maxAgeSeconds)")])
            case .healthCheck:
                RPCEndpoint(rpc.method, HealthCheckHandler(
                    health: dependencies.health, services: servedServices.union(gateway.map(\.method.path.service))),
                    service: service)
            case .exchangeSafetyNetToken, .exchangeRecaptchaV3Token, .exchangeRecaptchaEnterpriseToken,
                 .generatePlayIntegrityChallenge, .exchangePlayIntegrityToken:
                .unimplemented(rpc.method, service: service,
                               reason: "\(rpc.rawValue) is not served: attestd serves Apple's providers only.")
            case .getAttestedKey:
                RPCEndpoint(rpc.method, GetAttestedKeyHandler(exchange: exchange, callers: callers), service: service)
            case .revokeAttestedKey:
                RPCEndpoint(rpc.method, RevokeAttestedKeyHandler(exchange: exchange, callers: callers), service: service)
            case .exchangeDeviceCheckToken:
                RPCEndpoint(rpc.method, ExchangeDeviceCheckHandler(exchange: exchange, deviceCheck: deviceCheck), service: service)
            case .queryTwoBits:
                RPCEndpoint(rpc.method, QueryTwoBitsHandler(exchange: exchange, deviceCheck: deviceCheck, callers: callers),
                            service: service)
            case .updateTwoBits:
                RPCEndpoint(rpc.method, UpdateTwoBitsHandler(exchange: exchange, deviceCheck: deviceCheck, callers: callers),
                            service: service)
            }
        }
    }

    /// The services a health check may name.
    static let servedServices: Set<String> = Set(AppCheckRPC.allCases.map(\.service))
}
