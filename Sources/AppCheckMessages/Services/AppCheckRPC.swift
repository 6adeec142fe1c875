public import GRPC

/// Every unary RPC attestd knows, so that the server can switch over them exhaustively. Each has its gRPC path,
/// its REST bindings (api-contract.md §2) and its message types; ``AppCheckRPC/restRouter`` and
/// ``AppCheckRPC/init(grpcPath:)`` route requests to them.
public enum AppCheckRPC: String, CaseIterable, Sendable {
    // google.firebase.appcheck.v1.TokenExchangeService
    case getPublicJwkSet = "GetPublicJwkSet"
    case exchangeSafetyNetToken = "ExchangeSafetyNetToken"
    case exchangeDeviceCheckToken = "ExchangeDeviceCheckToken"
    case exchangeRecaptchaV3Token = "ExchangeRecaptchaV3Token"
    case exchangeRecaptchaEnterpriseToken = "ExchangeRecaptchaEnterpriseToken"
    case exchangeCustomToken = "ExchangeCustomToken"
    case exchangeDebugToken = "ExchangeDebugToken"
    case generateAppAttestChallenge = "GenerateAppAttestChallenge"
    case exchangeAppAttestAttestation = "ExchangeAppAttestAttestation"
    case exchangeAppAttestAssertion = "ExchangeAppAttestAssertion"
    case generatePlayIntegrityChallenge = "GeneratePlayIntegrityChallenge"
    case exchangePlayIntegrityToken = "ExchangePlayIntegrityToken"
    case verifyAppCheckToken = "VerifyAppCheckToken"
    // grpc.health.v1.Health (Watch is streaming: not served, so not listed)
    case healthCheck = "Check"
    // attestd.v1.DeviceStateService
    case queryTwoBits = "QueryTwoBits"
    case updateTwoBits = "UpdateTwoBits"
    // attestd.v1.KeyService
    case getAttestedKey = "GetAttestedKey"
    case revokeAttestedKey = "RevokeAttestedKey"

    /// The fully qualified service name.
    public var service: String {
        switch self {
        case .healthCheck: "grpc.health.v1.Health"
        case .queryTwoBits, .updateTwoBits: "attestd.v1.DeviceStateService"
        case .getAttestedKey, .revokeAttestedKey: "attestd.v1.KeyService"
        default: "google.firebase.appcheck.v1.TokenExchangeService"
        }
    }

    /// The gRPC path, `/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge`.
    public var grpcPath: GRPCMethodPath { GRPCMethodPath(service: service, method: rawValue) }

    /// The request message type.
    public var requestType: any ProtoMessage.Type {
        switch self {
        case .getPublicJwkSet: GetPublicJwkSetRequest.self
        case .exchangeSafetyNetToken: ExchangeSafetyNetTokenRequest.self
        case .exchangeDeviceCheckToken: ExchangeDeviceCheckTokenRequest.self
        case .exchangeRecaptchaV3Token: ExchangeRecaptchaV3TokenRequest.self
        case .exchangeRecaptchaEnterpriseToken: ExchangeRecaptchaEnterpriseTokenRequest.self
        case .exchangeCustomToken: ExchangeCustomTokenRequest.self
        case .exchangeDebugToken: ExchangeDebugTokenRequest.self
        case .generateAppAttestChallenge: GenerateAppAttestChallengeRequest.self
        case .exchangeAppAttestAttestation: ExchangeAppAttestAttestationRequest.self
        case .exchangeAppAttestAssertion: ExchangeAppAttestAssertionRequest.self
        case .generatePlayIntegrityChallenge: GeneratePlayIntegrityChallengeRequest.self
        case .exchangePlayIntegrityToken: ExchangePlayIntegrityTokenRequest.self
        case .verifyAppCheckToken: VerifyAppCheckTokenRequest.self
        case .healthCheck: HealthCheckRequest.self
        case .queryTwoBits: QueryTwoBitsRequest.self
        case .updateTwoBits: UpdateTwoBitsRequest.self
        case .getAttestedKey: GetAttestedKeyRequest.self
        case .revokeAttestedKey: RevokeAttestedKeyRequest.self
        }
    }

    /// The response message type.
    public var responseType: any ProtoMessage.Type {
        switch self {
        case .getPublicJwkSet: PublicJwkSet.self
        case .generateAppAttestChallenge: GenerateAppAttestChallengeResponse.self
        case .exchangeAppAttestAttestation: ExchangeAppAttestAttestationResponse.self
        case .generatePlayIntegrityChallenge: GeneratePlayIntegrityChallengeResponse.self
        case .verifyAppCheckToken: VerifyAppCheckTokenResponse.self
        case .healthCheck: HealthCheckResponse.self
        case .queryTwoBits, .updateTwoBits: TwoBitsState.self
        case .getAttestedKey, .revokeAttestedKey: AttestedKey.self
        case .exchangeSafetyNetToken, .exchangeDeviceCheckToken, .exchangeRecaptchaV3Token,
             .exchangeRecaptchaEnterpriseToken, .exchangeCustomToken, .exchangeDebugToken,
             .exchangeAppAttestAssertion, .exchangePlayIntegrityToken:
            AppCheckToken.self
        }
    }

    /// The REST bindings, primary first; empty for gRPC-only RPCs (health is served at `GET /healthz` by the
    /// HTTP layer instead).
    public var restBindings: [RESTBinding] {
        switch self {
        case .getPublicJwkSet:
            [RESTBinding("GET", "/v1/{name=jwks}", hasBody: false), RESTBinding("GET", "/v1beta/{name=jwks}", hasBody: false)]
        case .verifyAppCheckToken:
            [RESTBinding("POST", "/v1beta/{project=projects/*}:verifyAppCheckToken"),
             RESTBinding("POST", "/v1/{project=projects/*}:verifyAppCheckToken")]
        case .healthCheck:
            []
        default:
            // Firebase's v1 custom methods; the older iOS SDK (FirebaseAppCheck before AppCheckCore) used v1beta.
            [RESTBinding("POST", "/v1/{app=projects/*/apps/*}:\(restVerb)"),
             RESTBinding("POST", "/v1beta/{app=projects/*/apps/*}:\(restVerb)")]
        }
    }

    /// The custom verb of the REST binding: the method name in lowerCamelCase (`generateAppAttestChallenge`).
    private var restVerb: String { rawValue.prefix(1).lowercased() + rawValue.dropFirst() }

    /// The router's view of this RPC.
    public var method: RPCMethod {
        RPCMethod(path: grpcPath, requestSchema: requestType.schema, responseSchema: responseType.schema,
                  restBindings: restBindings)
    }

    /// The RPC a gRPC `:path` names, or nil (the server then answers UNIMPLEMENTED).
    public init?(grpcPath: GRPCMethodPath) {
        self.init(grpcPath: grpcPath.description)
    }

    /// The RPC a gRPC `:path` string names, or nil.
    public init?(grpcPath: String) {
        guard let rpc = Self.byPath[grpcPath] else { return nil }
        self = rpc
    }

    // Keyed by the whole `:path`, so that a lookup hashes the header value once and builds nothing.
    private static let byPath: [String: AppCheckRPC] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.grpcPath.description, $0) }
    )

    /// Routes REST requests (method and path) to RPCs and their path-bound fields.
    public static let restRouter = RESTRouter<AppCheckRPC>(
        allCases.flatMap { rpc in rpc.restBindings.map { ($0, rpc) } }
    )
}
