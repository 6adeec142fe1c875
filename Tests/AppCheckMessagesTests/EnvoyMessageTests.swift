import AppCheckMessages
import GRPC
import Testing

/// The ext_authz subset of Envoy's protos, against bytes laid out as Envoy's full definitions encode them.
@Suite("Envoy ext_authz messages")
struct EnvoyMessageTests {
    /// A length-delimited field (wire type 2), its length a varint.
    func field(_ number: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        var count = payload.count
        repeat {
            length.append(UInt8(count & 0x7f) | (count > 0x7f ? 0x80 : 0))
            count >>= 7
        } while count > 0
        return [number << 3 | 2] + length + payload
    }

    /// The field numbers of a message's top level, in order (length-delimited fields with short lengths only).
    func topLevelFields(_ bytes: [UInt8]) -> [UInt8] {
        var numbers: [UInt8] = []
        var index = 0
        while index < bytes.count {
            precondition(bytes[index] & 7 == 2 && bytes[index + 1] < 0x80)
            numbers.append(bytes[index] >> 3)
            index += 2 + Int(bytes[index + 1])
        }
        return numbers
    }

    func field(_ number: UInt8, _ text: String) -> [UInt8] { field(number, Array(text.utf8)) }

    func entry(_ key: String, _ value: String) -> [UInt8] { field(1, key) + field(2, value) }

    @Test("reads method, path and headers of a CheckRequest and skips the fields the subset leaves out")
    func readsCheckRequest() throws {
        let httpBytes = field(1, "req-1") + field(2, "POST") + field(3, entry("x-firebase-appcheck", "a.b.c"))
            + field(3, entry("user-agent", "ios")) + field(4, "/v1/redeem?x=1") + field(5, "api.example.com")
            + [9 << 3 | 0, 0x2a]  // size = 42 (int64), not in the subset
            + field(10, "HTTP/2")
        let request = field(1, [UInt8(0x0a), 2, 0x08, 0x01]) + field(2, httpBytes)  // time (a Timestamp), then http
        let source = field(2, "frontend")  // Peer.service, not in the subset
        let attributes = field(1, source) + field(4, request) + field(10, entry("attestd_route", "redeem"))
        let decoded = try EnvoyCheckRequest(serializedBytes: field(1, attributes))
        let http = try #require(decoded.attributes?.request?.http)
        #expect(http.id == "req-1")
        #expect(http.method == "POST")
        #expect(http.path == "/v1/redeem?x=1")
        #expect(http.host == "api.example.com")
        #expect(http.protocol == "HTTP/2")
        #expect(http.allHeaders == ["x-firebase-appcheck": "a.b.c", "user-agent": "ios"])
        #expect(decoded.attributes?.contextExtensions == ["attestd_route": "redeem"])
    }

    @Test("reads raw headers (header_map) into the same headers, joining repeated names")
    func readsRawHeaders() throws {
        let headerMap = field(1, field(1, "X-Firebase-AppCheck") + field(3, "t.o.k"))
            + field(1, field(1, "accept") + field(3, "a")) + field(1, field(1, "accept") + field(3, "b"))
        let http = field(2, "GET") + field(13, headerMap)
        let decoded = try EnvoyCheckRequest(serializedBytes: field(1, field(4, field(2, http))))
        #expect(decoded.attributes?.request?.http?.allHeaders == ["x-firebase-appcheck": "t.o.k", "accept": "a,b"])
    }

    @Test("a CheckRequest survives a round trip")
    func requestRoundTrip() throws {
        let request = EnvoyCheckRequest(attributes: .init(
            request: .init(http: .init(id: "1", method: "GET", headers: ["a": "1", "b": "2"], path: "/p", host: "h")),
            contextExtensions: ["attestd_route": "r"]))
        let decoded = try EnvoyCheckRequest(serializedBytes: request.serializedBytes())
        #expect(decoded.attributes?.request?.http?.headers == ["a": "1", "b": "2"])
        #expect(decoded.attributes?.contextExtensions == ["attestd_route": "r"])
        #expect(decoded.attributes?.request?.http?.path == "/p")
        #expect(decoded == request)
    }

    @Test("an OK answer encodes headers (overwrite), headers to remove, and no denied_response")
    func okResponse() throws {
        let ok = EnvoyOkHttpResponse(
            headers: [EnvoyHeaderValueOption("x-attestd-app-id", "1:2:ios:3")], headersToRemove: ["x-a", "x-b"])
        let response = EnvoyCheckResponse(status: RPCStatus(code: 0), httpResponse: .okResponse(ok))
        let bytes = response.serializedBytes()
        let decoded = try EnvoyCheckResponse(serializedBytes: bytes)
        #expect(decoded.httpResponse == .okResponse(ok))
        #expect(decoded.status?.code == 0)
        // status, then ok_response (3) and no denied_response (2): what Envoy's oneof reads.
        #expect(topLevelFields(bytes) == [1, 3])
        #expect(ok.headers.first?.appendAction == .overwriteIfExistsOrAdd)
    }

    @Test("a denial encodes the google.rpc.Status, the HTTP status and the body")
    func deniedResponse() throws {
        let denied = EnvoyDeniedHttpResponse(status: EnvoyHttpStatus(code: .forbidden),
                                             headers: [EnvoyHeaderValueOption("content-type", "application/json")], body: "{}")
        let response = EnvoyCheckResponse(status: RPCStatus(code: 7, message: "App attestation failed."),
                                          httpResponse: .deniedResponse(denied))
        let decoded = try EnvoyCheckResponse(serializedBytes: response.serializedBytes())
        #expect(decoded.status?.code == 7)
        #expect(decoded.status?.message == "App attestation failed.")
        #expect(decoded.httpResponse == .deniedResponse(denied))
        #expect(denied.status?.code.rawValue == 403)
        #expect(EnvoyCheckResponse.schema.fullName == "envoy.service.auth.v3.CheckResponse")
    }

    @Test("an error answer encodes error_response (5) in the oneof, and neither denied_response nor ok_response")
    func errorResponse() throws {
        let error = EnvoyDeniedHttpResponse(status: EnvoyHttpStatus(code: .serviceUnavailable),
                                            headers: [EnvoyHeaderValueOption("content-type", "application/json")], body: "{}")
        let response = EnvoyCheckResponse(status: RPCStatus(code: 14, message: "State store unavailable; try again."),
                                          httpResponse: .errorResponse(error))
        let bytes = response.serializedBytes()
        #expect(topLevelFields(bytes) == [1, 5])
        let decoded = try EnvoyCheckResponse(serializedBytes: bytes)
        #expect(decoded.status?.code == 14)
        #expect(decoded.httpResponse == .errorResponse(error))
    }

    @Test("reads the member of http_response that is set, whichever comes last on the wire")
    func oneofLastWins() throws {
        // Protobuf's rule for a oneof: the last member on the wire is the one set.
        let denied = field(1, [UInt8(0x08), 0x93, 0x03]) + field(3, "no")  // status { code = 403 }, body
        let ok = field(5, "x-a")  // headers_to_remove
        let decoded = try EnvoyCheckResponse(serializedBytes: field(2, denied) + field(3, ok))
        #expect(decoded.httpResponse == .okResponse(EnvoyOkHttpResponse(headersToRemove: ["x-a"])))
        let reversed = try EnvoyCheckResponse(serializedBytes: field(3, ok) + field(2, denied))
        #expect(reversed.httpResponse == .deniedResponse(EnvoyDeniedHttpResponse(
            status: EnvoyHttpStatus(code: EnvoyStatusCode(rawValue: 403)), body: "no")))
    }

    @Test("dynamic_metadata (4) carries strings, booleans, numbers and null as a google.protobuf.Struct")
    func dynamicMetadata() throws {
        let metadata = ProtoStruct(fields: ["app_id": .string("1:2:ios:3"), "limited_use": .bool(false),
                                            "empty": .string(""), "n": .number(2.5), "nothing": .null])
        let response = EnvoyCheckResponse(status: RPCStatus(), httpResponse: .okResponse(EnvoyOkHttpResponse()),
                                          dynamicMetadata: metadata)
        let bytes = response.serializedBytes()
        #expect(topLevelFields(bytes) == [1, 3, 4])
        #expect(try EnvoyCheckResponse(serializedBytes: bytes).dynamicMetadata == metadata)
        // Laid out as Envoy's full Struct: fields entry { key = 1, value = 2 { bool_value = 4 } }.
        let entry = field(1, "limited_use") + field(2, [UInt8(4 << 3), 1])
        let read = try EnvoyCheckResponse(serializedBytes: field(4, field(1, entry)))
        #expect(read.dynamicMetadata?.fields == ["limited_use": .bool(true)])
        // Without metadata, no Struct is written at all.
        let bare = EnvoyCheckResponse(status: RPCStatus(), httpResponse: .okResponse(EnvoyOkHttpResponse()))
        #expect(topLevelFields(bare.serializedBytes()) == [1, 3])
    }

    @Test("HeaderValueOption's append (2) is a BoolValue, absent unless set")
    func append() throws {
        let options = [EnvoyHeaderValueOption("a", "1"),
                       EnvoyHeaderValueOption("b", "2", appendAction: .appendIfExistsOrAdd, append: true),
                       EnvoyHeaderValueOption("c", "3", appendAction: .appendIfExistsOrAdd, append: false)]
        let bytes = EnvoyCheckResponse(httpResponse: .okResponse(EnvoyOkHttpResponse(headers: options))).serializedBytes()
        guard case .okResponse(let ok) = try EnvoyCheckResponse(serializedBytes: bytes).httpResponse else {
            Issue.record("no ok_response")
            return
        }
        #expect(ok.headers.map(\.append?.value) == [nil, true, false])
        #expect(ok.headers == options)
    }
}
