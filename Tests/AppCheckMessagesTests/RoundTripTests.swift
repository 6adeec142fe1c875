import Testing
import AppCheckMessages
import GRPC

@Suite("round trips of every message")
struct RoundTripTests {
    /// Pack → unpack, and protobuf → JSON → protobuf, both give back the value.
    private func roundTrip<M: ProtoMessage & Equatable>(
        _ value: M,
        emptyJSON: String = "{}",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let bytes = value.serializedBytes()
        #expect(!bytes.isEmpty, sourceLocation: sourceLocation)
        #expect(try M(serializedBytes: bytes) == value, sourceLocation: sourceLocation)
        #expect(try M(serializedBytes: ([0xFF] + bytes)[1...]) == value, sourceLocation: sourceLocation)
        let json = try value.jsonBytes()
        #expect(try M(json: json[...]) == value, "\(String(decoding: json, as: UTF8.self))",
                sourceLocation: sourceLocation)
        // A default value is the empty encoding and the empty object.
        let empty = try M(serializedBytes: [])
        #expect(empty.serializedBytes().isEmpty, sourceLocation: sourceLocation)
        #expect(try empty.jsonBytes() == Array(emptyJSON.utf8), sourceLocation: sourceLocation)
    }

    @Test("token exchange messages survive protobuf and JSON")
    func tokenExchange() throws {
        try roundTrip(Samples.getPublicJwkSetRequest)
        try roundTrip(Samples.publicJwkSet)
        try roundTrip(Samples.rsaKey)
        try roundTrip(Samples.ecKey)
        try roundTrip(Samples.token)
        try roundTrip(Samples.exchangeSafetyNetTokenRequest)
        try roundTrip(Samples.exchangeDeviceCheckTokenRequest)
        try roundTrip(Samples.exchangeRecaptchaV3TokenRequest)
        try roundTrip(Samples.exchangeRecaptchaEnterpriseTokenRequest)
        try roundTrip(Samples.exchangeCustomTokenRequest)
        try roundTrip(Samples.exchangeDebugTokenRequest)
        try roundTrip(Samples.generateAppAttestChallengeRequest)
        try roundTrip(Samples.generateAppAttestChallengeResponse)
        try roundTrip(Samples.exchangeAppAttestAttestationRequest)
        try roundTrip(Samples.exchangeAppAttestAttestationResponse)
        try roundTrip(Samples.exchangeAppAttestAssertionRequest)
        try roundTrip(Samples.generatePlayIntegrityChallengeRequest)
        try roundTrip(Samples.generatePlayIntegrityChallengeResponse)
        try roundTrip(Samples.exchangePlayIntegrityTokenRequest)
        try roundTrip(Samples.verifyAppCheckTokenRequest)
        try roundTrip(Samples.verifyAppCheckTokenResponse)
    }

    @Test("health, device state, key and well-known messages survive protobuf and JSON")
    func others() throws {
        try roundTrip(Samples.healthCheckRequest)
        try roundTrip(Samples.healthCheckResponse)
        try roundTrip(Samples.queryTwoBitsRequest)
        try roundTrip(Samples.updateTwoBitsRequest)
        try roundTrip(Samples.twoBitsState)
        try roundTrip(Samples.getAttestedKeyRequest)
        try roundTrip(Samples.revokeAttestedKeyRequest)
        try roundTrip(Samples.attestedKey)
        try roundTrip(Samples.ttl, emptyJSON: #""0s""#)
        try roundTrip(Samples.time, emptyJSON: #""1970-01-01T00:00:00Z""#)
        #expect(try String(decoding: Samples.ttl.jsonBytes(), as: UTF8.self) == #""3600.500s""#)
        #expect(try String(decoding: Samples.time.jsonBytes(), as: UTF8.self) == #""2026-11-29T15:38:45.120Z""#)
    }

    @Test("keeps an unknown enum number")
    func openEnums() throws {
        let response = HealthCheckResponse(status: .init(rawValue: 9))
        #expect(try HealthCheckResponse(serializedBytes: response.serializedBytes()).status.rawValue == 9)
        let key = AttestedKey(environment: .init(rawValue: 5))
        #expect(try AttestedKey(serializedBytes: key.serializedBytes()).environment.rawValue == 5)
    }
}

@Suite("values without a JSON form")
struct NoJSONFormTests {
    @Test("reports a timestamp outside years 1 to 9999 as INTERNAL instead of writing it")
    func outOfRangeTimestamp() {
        let state = TwoBitsState(lastUpdateTime: ProtoTimestamp(seconds: Int64.max))
        do {
            _ = try state.jsonBytes()
            Issue.record("wrote an impossible timestamp")
        } catch {
            #expect(error.code == .internal)
        }
    }
}
