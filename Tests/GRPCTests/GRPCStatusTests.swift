import Testing
@testable import GRPC

@Suite("GRPCStatus")
struct GRPCStatusTests {
    @Test("maps codes to google.rpc names and HTTP statuses")
    func namesAndHTTPStatuses() {
        let expected: [(GRPCStatus.Code, String, Int)] = [
            (.ok, "OK", 200), (.invalidArgument, "INVALID_ARGUMENT", 400), (.notFound, "NOT_FOUND", 404),
            (.permissionDenied, "PERMISSION_DENIED", 403), (.resourceExhausted, "RESOURCE_EXHAUSTED", 429),
            (.unavailable, "UNAVAILABLE", 503), (.deadlineExceeded, "DEADLINE_EXCEEDED", 504),
            (.unimplemented, "UNIMPLEMENTED", 501), (.failedPrecondition, "FAILED_PRECONDITION", 400),
            (.unauthenticated, "UNAUTHENTICATED", 401), (.internal, "INTERNAL", 500), (.cancelled, "CANCELLED", 499),
            (.alreadyExists, "ALREADY_EXISTS", 409), (.aborted, "ABORTED", 409), (.outOfRange, "OUT_OF_RANGE", 400),
            (.dataLoss, "DATA_LOSS", 500), (.unknown, "UNKNOWN", 500),
        ]
        for (code, name, http) in expected {
            #expect(code.name == name)
            #expect(code.httpStatus == http, "\(name)")
        }
        #expect(GRPCStatus.Code.permissionDenied.rawValue == 7)
        #expect(GRPCStatus.Code(rawValue: 16) == .unauthenticated)
        #expect(GRPCStatus.Code(rawValue: 17) == nil)
        #expect(GRPCStatus.Code(rawValue: -1) == nil)
    }

    @Test("percent-encodes grpc-message as the gRPC spec requires")
    func percentEncoding() {
        #expect(GRPCStatus.percentEncode("App attestation failed.") == "App attestation failed.")
        #expect(GRPCStatus.percentEncode("100% sure") == "100%25 sure")
        #expect(GRPCStatus.percentEncode("line\nbreak") == "line%0Abreak")
        #expect(GRPCStatus.percentEncode("café ☕") == "caf%C3%A9 %E2%98%95")
        #expect(GRPCStatus(.internal, "a%b").encodedMessage == "a%25b")
    }

    @Test("percent-decoding inverts encoding and keeps malformed escapes")
    func percentDecoding() {
        for text in ["plain", "100% sure", "caf\u{E9} \u{2615}\n\t", "%%%"] {
            #expect(GRPCStatus.percentDecode(GRPCStatus.percentEncode(text)) == text)
        }
        #expect(GRPCStatus.percentDecode("50%") == "50%")
        #expect(GRPCStatus.percentDecode("%zz%4") == "%zz%4")
        #expect(GRPCStatus.percentDecode("%41%42") == "AB")
    }

    @Test("describes itself with code, message and cause")
    func description() {
        struct Boom: Error {}
        let status = GRPCStatus(.unavailable, "store down", cause: Boom())
        #expect(status.description.hasPrefix("UNAVAILABLE: store down (cause:"))
        #expect(GRPCStatus.ok.description == "OK")
    }
}

@Suite("common statuses")
struct CommonStatusTests {
    @Test("names the unknown method, path or RPC with the conventional codes")
    func common() {
        let unknown = GRPCStatus.unknownMethod("/a.B/C")
        #expect(unknown.code == .unimplemented)
        #expect(unknown.message.contains("/a.B/C"))
        let rest = GRPCStatus.unknownRESTPath(method: "POST", path: "/v2/x")
        #expect(rest.code == .notFound)
        #expect(rest.code.httpStatus == 404)
        #expect(rest.message.contains("POST /v2/x"))
        #expect(GRPCStatus.notServed("ExchangeSafetyNetToken").code == .unimplemented)
    }
}
