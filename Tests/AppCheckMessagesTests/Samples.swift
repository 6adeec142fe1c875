import AppCheckMessages

/// One value of every message with every field set to something other than its default.
enum Samples {
    static let app = "projects/123456789012/apps/1:123456789012:ios:0123456789abcdef"
    static let ttl = ProtoDuration(seconds: 3600, nanos: 500_000_000)
    static let time = ProtoTimestamp(seconds: 1_795_966_725, nanos: 120_000_000)
    static let token = AppCheckToken(token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln", ttl: ttl)
    static let rsaKey = PublicJwk(kty: "RSA", use: "sig", alg: "RS256", kid: "k1", n: "0vx7agoebGcQ", e: "AQAB")
    static let ecKey = PublicJwk(kty: "EC", use: "sig", alg: "ES256", kid: "k2", crv: "P-256", x: "f83OJ3D2", y: "x_FEzRu9")
    static let bytes: [UInt8] = Array(0...255)
    static let attestation = (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    static let getPublicJwkSetRequest = GetPublicJwkSetRequest(name: "jwks")
    static let publicJwkSet = PublicJwkSet(keys: [rsaKey, ecKey])
    static let exchangeSafetyNetTokenRequest = ExchangeSafetyNetTokenRequest(app: app, safetyNetToken: "sn")
    static let exchangeDeviceCheckTokenRequest = ExchangeDeviceCheckTokenRequest(app: app, deviceToken: "ZGV2aWNl", limitedUse: true)
    static let exchangeRecaptchaV3TokenRequest = ExchangeRecaptchaV3TokenRequest(app: app, recaptchaV3Token: "r3", limitedUse: true)
    static let exchangeRecaptchaEnterpriseTokenRequest = ExchangeRecaptchaEnterpriseTokenRequest(
        app: app, recaptchaEnterpriseToken: "re", limitedUse: true)
    static let exchangeCustomTokenRequest = ExchangeCustomTokenRequest(app: app, customToken: "jwt", limitedUse: true)
    static let exchangeDebugTokenRequest = ExchangeDebugTokenRequest(
        app: app, debugToken: "6f9d2c1e-1111-4222-8333-944455556666", limitedUse: true)
    static let generateAppAttestChallengeRequest = GenerateAppAttestChallengeRequest(app: app)
    static let generateAppAttestChallengeResponse = GenerateAppAttestChallengeResponse(
        challenge: Array(bytes.prefix(48)), ttl: .seconds(300))
    static let exchangeAppAttestAttestationRequest = ExchangeAppAttestAttestationRequest(
        app: app, attestationStatement: attestation, challenge: Array(bytes.prefix(48)),
        keyID: Array(bytes.suffix(32)), limitedUse: true)
    static let exchangeAppAttestAttestationResponse = ExchangeAppAttestAttestationResponse(
        artifact: Array(bytes.prefix(200)), appCheckToken: token)
    static let exchangeAppAttestAssertionRequest = ExchangeAppAttestAssertionRequest(
        app: app, artifact: Array(bytes.prefix(200)), assertion: Array(bytes.suffix(120)),
        challenge: Array(bytes.prefix(48)), limitedUse: true)
    static let generatePlayIntegrityChallengeRequest = GeneratePlayIntegrityChallengeRequest(app: app)
    static let generatePlayIntegrityChallengeResponse = GeneratePlayIntegrityChallengeResponse(challenge: "c", ttl: ttl)
    static let exchangePlayIntegrityTokenRequest = ExchangePlayIntegrityTokenRequest(
        app: app, playIntegrityToken: "pi", limitedUse: true)
    static let verifyAppCheckTokenRequest = VerifyAppCheckTokenRequest(project: "projects/attestd-dev", appCheckToken: "jwt")
    static let verifyAppCheckTokenResponse = VerifyAppCheckTokenResponse(alreadyConsumed: true)
    static let healthCheckRequest = HealthCheckRequest(service: "google.firebase.appcheck.v1.TokenExchangeService")
    static let healthCheckResponse = HealthCheckResponse(status: .serving)
    static let queryTwoBitsRequest = QueryTwoBitsRequest(app: app, deviceToken: "ZGV2aWNl")
    static let updateTwoBitsRequest = UpdateTwoBitsRequest(app: app, deviceToken: "ZGV2aWNl", bit0: true, bit1: true)
    static let twoBitsState = TwoBitsState(bit0: true, bit1: true, lastUpdateTime: ProtoTimestamp(seconds: 1_793_491_200),
                                           bitsSet: true)
    static let getAttestedKeyRequest = GetAttestedKeyRequest(app: app, keyID: Array(bytes.suffix(32)))
    static let revokeAttestedKeyRequest = RevokeAttestedKeyRequest(app: app, keyID: Array(bytes.suffix(32)),
                                                                   reason: "fraud ring")
    static let attestedKey = AttestedKey(
        keyID: Array(bytes.suffix(32)), app: app, environment: .production, firstAttestedTime: time,
        lastSeenTime: ProtoTimestamp(seconds: 1_795_966_800), counter: 42, riskMetric: 3,
        receiptCreationTime: time, receiptNotBeforeTime: ProtoTimestamp(seconds: 1_796_000_000),
        receiptExpirationTime: ProtoTimestamp(seconds: 1_803_742_725), revoked: true,
        revokeTime: ProtoTimestamp(seconds: 1_796_100_000, nanos: 1), revokeReason: "fraud ring")
}
