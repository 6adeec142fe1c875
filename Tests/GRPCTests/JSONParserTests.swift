import Testing
import GRPC

@Suite("JSON parser")
struct JSONParserTests {
    let parser = JSONParser()

    private func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parser.parse(Array(text.utf8))
    }

    private func errorCode(_ text: String, parser: JSONParser = JSONParser()) -> JSONError.Code? {
        do {
            _ = try parser.parse(Array(text.utf8))
            return nil
        } catch {
            return error.code
        }
    }

    @Test("parses every kind of value")
    func values() throws {
        let value = try parse(#" { "a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": "" } "#)
        #expect(value == .object([
            JSONMember("a", .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null])),
            JSONMember("b", .object([JSONMember("c", .string("d"))])),
            JSONMember("e", .string("")),
        ]))
        #expect(value["b"]?["c"] == .string("d"))
        #expect(try parse("0") == .number("0"))
        #expect(try parse("\"x\"") == .string("x"))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object([]))
    }

    @Test("decodes escapes, including surrogate pairs")
    func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u2615""#) == .string("é☕"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse("\"caf\u{E9}\"") == .string("café"))
    }

    @Test("keeps 64-bit integers exactly as written")
    func bigNumbers() throws {
        #expect(try parse("9223372036854775807") == .number("9223372036854775807"))
    }

    @Test("rejects text that breaks RFC 8259")
    func syntaxErrors() {
        let bad = [
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "01", "-", "1.", ".5", "1e", "+1", "NaN",
            "Infinity", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "[1 2]", "{\"a\" 1}", "{\"a\":1 \"b\":2}",
            "\"tab\there\"", "// comment\n1", "1 2", "{} x", "[1]]",
        ]
        for text in bad {
            #expect(errorCode(text) == .syntax, "\(text)")
        }
    }

    @Test("rejects invalid UTF-8 and lone surrogates")
    func invalidUTF8() {
        #expect(throws: JSONError.self) { try parser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(errorCode(#""\ud800""#) == .invalidUTF8)
        #expect(errorCode(#""\udc00""#) == .invalidUTF8)
        #expect(errorCode(#""\ud800\u0041""#) == .invalidUTF8)
    }

    @Test("enforces the size and depth limits")
    func limits() {
        let small = JSONParser(maxBytes: 10, maxDepth: 3)
        #expect(errorCode("[1,2,3,4,5,6]", parser: small) == .tooLarge)
        #expect(errorCode("[[[1]]]", parser: small) == nil)
        #expect(errorCode("[[[[1]]]]", parser: small) == .tooDeep)
        #expect(errorCode(#"{"a":{"b":{"c":{}}}}"#, parser: JSONParser(maxBytes: 100, maxDepth: 3)) == .tooDeep)
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(errorCode(deep, parser: JSONParser(maxBytes: 1 << 20)) == .tooDeep)
    }

    @Test("reports the offset of an error")
    func offsets() {
        do {
            _ = try parse("[1, x]")
            Issue.record("accepted")
        } catch {
            #expect(error.offset == 4)
            #expect(error.description.contains("byte 4"))
        }
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("writes compact JSON that parses back to the same value")
    func roundTrip() throws {
        let value = JSONValue.object([
            JSONMember("s", .string("quote \" backslash \\ newline \n tab \t bell \u{7} é 😀")),
            JSONMember("n", .array([.number("1"), .number("-2.5"), .bool(true), .null])),
            JSONMember("o", .object([])),
        ])
        var writer = JSONWriter()
        writer.write(value)
        #expect(try JSONParser().parse(writer.bytes) == value)
        #expect(String(decoding: writer.bytes, as: UTF8.self).contains(#"\u0007"#))
    }

    @Test("writes Google's error body")
    func errorBody() {
        let body = GoogleErrorBody.json(for: GRPCStatus(.permissionDenied, "App attestation failed."))
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"error":{"code":403,"message":"App attestation failed.","status":"PERMISSION_DENIED"}}"#)
        let quoted = GoogleErrorBody.json(for: GRPCStatus(.invalidArgument, "bad \"x\""))
        #expect(String(decoding: quoted, as: UTF8.self).contains(#""message":"bad \"x\"""#))
    }
}
