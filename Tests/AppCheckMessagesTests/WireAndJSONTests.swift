import Testing
import AppCheckMessages
import GRPC

@Suite("wire and JSON forms")
struct WireAndJSONTests {
    @Test("packs the challenge response in protobuf's standard encoding")
    func challengeWireBytes() {
        let response = GenerateAppAttestChallengeResponse(challenge: [1, 2, 3], ttl: .seconds(300))
        #expect(response.serializedBytes() == [0x0A, 3, 1, 2, 3, 0x12, 3, 0x08, 0xAC, 0x02])
    }

    @Test("writes the challenge response as the iOS SDK reads it")
    func challengeJSON() throws {
        let response = GenerateAppAttestChallengeResponse(challenge: Array("hello world!?".utf8), ttl: .seconds(300))
        #expect(try String(decoding: response.jsonBytes(), as: UTF8.self) == #"{"challenge":"aGVsbG8gd29ybGQhPw==","ttl":"300s"}"#)
    }

    @Test("writes an attestation response with a nested token and a fractional ttl")
    func attestationResponseJSON() throws {
        let response = ExchangeAppAttestAttestationResponse(
            artifact: [0xFB, 0xFF], appCheckToken: AppCheckToken(token: "t", ttl: .milliseconds(1_800_500)))
        #expect(try String(decoding: response.jsonBytes(), as: UTF8.self)
            == #"{"artifact":"+/8=","appCheckToken":{"token":"t","ttl":"1800.500s"}}"#)
    }

    @Test("reads the iOS SDK's snake_case attestation body with the app from the path")
    func iosAttestationBody() throws {
        let keyID = Array(0..<32).map(UInt8.init)
        let body = #"""
            {"key_id":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=","attestation_statement":"o2NmbXQ","challenge":"q83v","limited_use":false}
            """#
        let request = try ExchangeAppAttestAttestationRequest(
            json: Array(body.utf8)[...], pathParameters: [PathParameter(field: "app", value: Samples.app)])
        #expect(request.app == Samples.app)
        #expect(request.keyID == keyID)
        #expect(request.attestationStatement == [0xA3, 0x63, 0x66, 0x6D, 0x74])
        #expect(request.challenge == [0xAB, 0xCD, 0xEF])
        #expect(request.limitedUse == false)
    }

    @Test("reads the Node Admin SDK's verify body and a lowerCamelCase one alike")
    func verifyBodies() throws {
        let project = [PathParameter(field: "project", value: "projects/attestd-dev")]
        let snake = try VerifyAppCheckTokenRequest(json: Array(#"{"app_check_token":"a.b.c"}"#.utf8)[...], pathParameters: project)
        let camel = try VerifyAppCheckTokenRequest(json: Array(#"{"appCheckToken":"a.b.c"}"#.utf8)[...], pathParameters: project)
        #expect(snake == camel)
        #expect(snake == VerifyAppCheckTokenRequest(project: "projects/attestd-dev", appCheckToken: "a.b.c"))
    }

    @Test("reads an absent challenge body as the empty request plus the app")
    func emptyChallengeBody() throws {
        let request = try GenerateAppAttestChallengeRequest(
            json: [][...], pathParameters: [PathParameter(field: "app", value: Samples.app)])
        #expect(request == Samples.generateAppAttestChallengeRequest)
    }

    @Test("names the field when a JSON body has the wrong type")
    func wrongType() {
        do {
            _ = try ExchangeDebugTokenRequest(json: Array(#"{"debug_token":42}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("'debug_token'"))
        }
    }

    @Test("refuses bytes that are not the message with INVALID_ARGUMENT")
    func malformedProtobuf() {
        for bytes: [UInt8] in [[0x0A, 10, 1], [0xFF], [0x0A], [0x0B, 0x0C]] {
            do {
                _ = try ExchangeAppAttestAssertionRequest(serializedBytes: bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
    }

    @Test("refuses a string field that is not UTF-8")
    func invalidUTF8() {
        #expect(throws: GRPCStatus.self) { try GenerateAppAttestChallengeRequest(serializedBytes: [0x0A, 2, 0xC3, 0x28]) }
    }

    @Test("ignores unknown fields when unpacking")
    func unknownFields() throws {
        let bytes = Samples.generateAppAttestChallengeRequest.serializedBytes() + [0xF8, 0x01, 0x05]
        #expect(try GenerateAppAttestChallengeRequest(serializedBytes: bytes) == Samples.generateAppAttestChallengeRequest)
    }
}

@Suite("encoding buffers")
struct EncodingBufferTests {
    @Test("frames a response in one buffer, identical to framing its encoding")
    func framedBytes() {
        let response = GenerateAppAttestChallengeResponse(challenge: Array(repeating: 9, count: 76), ttl: .seconds(300))
        #expect(response.framedBytes() == GRPCFraming.frame(response.serializedBytes()))
        #expect(HealthCheckResponse().framedBytes() == [0, 0, 0, 0, 0])
    }

    @Test("encodes and decodes messages larger than the stack arenas")
    func largeMessages() throws {
        let modulus = String(repeating: "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc", count: 4)
        let keys = (0..<40).map { PublicJwk(kty: "RSA", use: "sig", alg: "RS256", kid: "key-\($0)", n: modulus, e: "AQAB") }
        let set = PublicJwkSet(keys: keys)
        let bytes = set.serializedBytes()
        #expect(bytes.count > 40 * modulus.utf8.count)
        #expect(try PublicJwkSet(serializedBytes: bytes) == set)
        #expect(try PublicJwkSet(json: set.jsonBytes()[...]) == set)
    }
}
