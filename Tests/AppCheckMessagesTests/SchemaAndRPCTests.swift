import Testing
import AppCheckMessages
import GRPC

@Suite("schemas and the RPC table")
struct SchemaAndRPCTests {
    @Test("derives names, JSON names, numbers and types from the descriptor")
    func attestationSchema() {
        let schema = ExchangeAppAttestAttestationRequest.schema
        #expect(schema.fullName == "google.firebase.appcheck.v1.ExchangeAppAttestAttestationRequest")
        #expect(schema.fields.map(\.name) == ["app", "attestation_statement", "challenge", "key_id", "limited_use"])
        #expect(schema.fields.map(\.jsonName) == ["app", "attestationStatement", "challenge", "keyId", "limitedUse"])
        #expect(schema.fields.map(\.number) == [1, 2, 3, 4, 5])
        guard case .bytes = schema.fields[1].type, case .bool = schema.fields[4].type else {
            Issue.record("wrong types")
            return
        }
    }

    @Test("derives nested, repeated and enum fields")
    func nestedSchemas() {
        let set = PublicJwkSet.schema
        #expect(set.fields.first?.isRepeated == true)
        guard case .message(let jwk) = set.fields.first?.type else {
            Issue.record("keys is not a message field")
            return
        }
        #expect(jwk.fields.map(\.name) == ["kty", "use", "alg", "kid", "n", "e", "crv", "x", "y"])
        guard case .message(let ttl) = AppCheckToken.schema.fields[1].type else {
            Issue.record("ttl is not a message field")
            return
        }
        #expect(ttl.fullName == "google.protobuf.Duration")
        guard case .enumeration(let status) = HealthCheckResponse.schema.fields[0].type else {
            Issue.record("status is not an enum field")
            return
        }
        #expect(status.values.map(\.name) == ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"])
    }

    @Test("has the contract's field numbers")
    func contractNumbers() {
        func numbers(_ schema: MessageSchema) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: schema.fields.map { ($0.name, $0.number) })
        }
        #expect(numbers(PublicJwk.schema) == ["kty": 1, "use": 2, "alg": 3, "kid": 4, "n": 5, "e": 6, "crv": 7, "x": 8, "y": 9])
        #expect(numbers(AppCheckToken.schema) == ["token": 1, "ttl": 2])
        #expect(numbers(ExchangeAppAttestAssertionRequest.schema)
            == ["app": 1, "artifact": 2, "assertion": 3, "challenge": 4, "limited_use": 5])
        #expect(numbers(ExchangeAppAttestAttestationResponse.schema) == ["artifact": 1, "app_check_token": 2])
        #expect(numbers(ExchangeDeviceCheckTokenRequest.schema) == ["app": 1, "device_token": 2, "limited_use": 3])
        #expect(numbers(ExchangeDebugTokenRequest.schema) == ["app": 1, "debug_token": 2, "limited_use": 3])
        #expect(numbers(ExchangeCustomTokenRequest.schema) == ["app": 1, "custom_token": 2, "limited_use": 3])
        #expect(numbers(VerifyAppCheckTokenRequest.schema) == ["project": 1, "app_check_token": 2])
        #expect(numbers(VerifyAppCheckTokenResponse.schema) == ["already_consumed": 1])
        #expect(numbers(GenerateAppAttestChallengeResponse.schema) == ["challenge": 1, "ttl": 2])
    }

    @Test("finds every RPC by its gRPC path")
    func grpcPaths() {
        #expect(AppCheckRPC.allCases.count == 18)
        for rpc in AppCheckRPC.allCases {
            #expect(AppCheckRPC(grpcPath: rpc.grpcPath.description) == rpc)
        }
        #expect(AppCheckRPC(grpcPath: "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge")
            == .generateAppAttestChallenge)
        #expect(AppCheckRPC(grpcPath: "/grpc.health.v1.Health/Check") == .healthCheck)
        #expect(AppCheckRPC(grpcPath: "/grpc.health.v1.Health/Watch") == nil)
        #expect(AppCheckRPC(grpcPath: "/google.firebase.appcheck.v1.TokenExchangeService/Nope") == nil)
        #expect(AppCheckRPC.exchangeAppAttestAssertion.responseType is AppCheckToken.Type)
        #expect(AppCheckRPC.generateAppAttestChallenge.method.responseSchema.fullName
            == "google.firebase.appcheck.v1.GenerateAppAttestChallengeResponse")
    }

    @Test("binds each REST path variable to a string field of the request")
    func bindingsNameRealFields() {
        for rpc in AppCheckRPC.allCases {
            for binding in rpc.restBindings {
                guard let field = binding.variableField else { continue }
                let schemaField = rpc.requestType.schema.fields.first { $0.name == field }
                guard case .string = schemaField?.type else {
                    Issue.record("\(rpc): \(binding) binds '\(field)', not a string field")
                    continue
                }
            }
        }
    }

    @Test("routes the Firebase REST calls, with the project number or id")
    func restRoutes() {
        let cases: [(String, String, AppCheckRPC, String)] = [
            ("POST", "/v1/projects/attestd-dev/apps/1:123456789012:ios:0123456789abcdef:generateAppAttestChallenge",
             .generateAppAttestChallenge, "projects/attestd-dev/apps/1:123456789012:ios:0123456789abcdef"),
            ("POST", "/v1/projects/123456789012/apps/1:123456789012:ios:0123456789abcdef:exchangeAppAttestAttestation",
             .exchangeAppAttestAttestation, "projects/123456789012/apps/1:123456789012:ios:0123456789abcdef"),
            ("POST", "/v1beta/projects/p/apps/1:1:ios:a:exchangeAppAttestAssertion", .exchangeAppAttestAssertion,
             "projects/p/apps/1:1:ios:a"),
            ("POST", "/v1/projects/p/apps/1:1:ios:a:exchangeDeviceCheckToken?key=AIza", .exchangeDeviceCheckToken,
             "projects/p/apps/1:1:ios:a"),
            ("POST", "/v1beta/projects/attestd-dev:verifyAppCheckToken", .verifyAppCheckToken, "projects/attestd-dev"),
            ("POST", "/v1/projects/attestd-dev:verifyAppCheckToken", .verifyAppCheckToken, "projects/attestd-dev"),
            ("GET", "/v1/jwks", .getPublicJwkSet, "jwks"),
            ("GET", "/v1beta/jwks", .getPublicJwkSet, "jwks"),
            ("POST", "/v1/projects/p/apps/1:1:ios:a:queryTwoBits", .queryTwoBits, "projects/p/apps/1:1:ios:a"),
            ("POST", "/v1/projects/p/apps/1:1:ios:a:revokeAttestedKey", .revokeAttestedKey, "projects/p/apps/1:1:ios:a"),
        ]
        for (method, target, rpc, value) in cases {
            guard case .matched(let found, _, let parameter) = AppCheckRPC.restRouter.route(method: method, target: target)
            else {
                Issue.record("\(method) \(target) not routed")
                continue
            }
            #expect(found == rpc, "\(target)")
            #expect(parameter?.value == value, "\(target)")
        }
    }

    @Test("refuses a REST app name of the wrong shape with INVALID_ARGUMENT")
    func badAppName() {
        guard case .invalidResource(let status) = AppCheckRPC.restRouter.route(
            method: "POST", target: "/v1/projects/p/1:1:ios:a:generateAppAttestChallenge") else {
            Issue.record("not refused")
            return
        }
        #expect(status.code == .invalidArgument)
        guard case .methodNotAllowed(["POST"]) = AppCheckRPC.restRouter.route(
            method: "GET", target: "/v1/projects/p/apps/a:generateAppAttestChallenge") else {
            Issue.record("GET accepted")
            return
        }
    }
}
