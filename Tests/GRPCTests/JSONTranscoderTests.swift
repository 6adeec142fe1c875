import Testing
@testable import GRPC

/// Schemas written by hand, shaped like the App Check messages, so that GRPC is tested without protobuf-c.
enum TestSchemas {
    static let duration = MessageSchema(fullName: "google.protobuf.Duration", fields: [
        FieldSchema(name: "seconds", number: 1, type: .int64), FieldSchema(name: "nanos", number: 2, type: .int32),
    ])
    static let timestamp = MessageSchema(fullName: "google.protobuf.Timestamp", fields: [
        FieldSchema(name: "seconds", number: 1, type: .int64), FieldSchema(name: "nanos", number: 2, type: .int32),
    ])
    static let token = MessageSchema(fullName: "test.Token", fields: [
        FieldSchema(name: "token", number: 1, type: .string),
        FieldSchema(name: "ttl", number: 2, type: .message(duration)),
    ])
    static let status = EnumSchema(fullName: "test.Status", values: [("UNKNOWN", 0), ("SERVING", 1)])
    static let request = MessageSchema(fullName: "test.Request", fields: [
        FieldSchema(name: "app", number: 1, type: .string),
        FieldSchema(name: "attestation_statement", number: 2, type: .bytes),
        FieldSchema(name: "key_id", number: 4, type: .bytes),
        FieldSchema(name: "limited_use", number: 5, type: .bool),
        FieldSchema(name: "count", number: 6, type: .int64),
        FieldSchema(name: "small", number: 7, type: .int32),
        FieldSchema(name: "counter", number: 8, type: .uint32),
        FieldSchema(name: "app_check_token", number: 9, type: .message(token)),
        FieldSchema(name: "tokens", number: 10, type: .message(token), isRepeated: true),
        FieldSchema(name: "status", number: 11, type: .enumeration(status)),
        FieldSchema(name: "ratio", number: 12, type: .double),
        FieldSchema(name: "when", number: 13, type: .message(timestamp)),
        FieldSchema(name: "numbers", number: 14, type: .sint64, isRepeated: true),
        FieldSchema(name: "big", number: 15, type: .uint64),
    ])
}

@Suite("JSON transcoding")
struct JSONTranscoderTests {
    private func toProto(_ json: String, _ parameters: [PathParameter] = []) throws(GRPCStatus) -> [UInt8] {
        try JSONTranscoder.protobuf(fromJSON: Array(json.utf8), schema: TestSchemas.request, pathParameters: parameters)
    }

    private func toJSON(_ proto: [UInt8], _ schema: MessageSchema = TestSchemas.request) throws(GRPCStatus) -> String {
        String(decoding: try JSONTranscoder.json(fromProtobuf: proto, schema: schema), as: UTF8.self)
    }

    private func roundTrip(_ json: String) throws -> String {
        try toJSON(try toProto(json))
    }

    private func failure(_ json: String) -> GRPCStatus? {
        do {
            _ = try toProto(json)
            return nil
        } catch {
            return error
        }
    }

    @Test("accepts lowerCamelCase and snake_case names alike")
    func bothNameStyles() throws {
        let camel = try toProto(#"{"attestationStatement":"AAEC","keyId":"AwQ=","limitedUse":true}"#)
        let snake = try toProto(#"{"attestation_statement":"AAEC","key_id":"AwQ=","limited_use":true}"#)
        #expect(camel == snake)
        #expect(camel == [0x12, 3, 0, 1, 2, 0x22, 2, 3, 4, 0x28, 1])
    }

    @Test("writes lowerCamelCase names and standard padded base64")
    func output() throws {
        #expect(try roundTrip(#"{"key_id":"-_8","attestation_statement":"AA"}"#)
            == #"{"attestationStatement":"AA==","keyId":"+/8="}"#)
    }

    @Test("decodes base64 in both alphabets, padded or not")
    func base64Variants() throws {
        let expected: [UInt8] = [0x22, 3, 0xFB, 0xFF, 0xBF]
        for text in ["+/+/", "-_-_", "+/+/", "-_+/"] {
            #expect(try toProto(#"{"keyId":"\#(text)"}"#) == expected, "\(text)")
        }
        #expect(try toProto(#"{"keyId":"+/8="}"#) == [0x22, 2, 0xFB, 0xFF])
        #expect(try toProto(#"{"keyId":"+/8"}"#) == [0x22, 2, 0xFB, 0xFF])
        #expect(try toProto(#"{"keyId":"-_8"}"#) == [0x22, 2, 0xFB, 0xFF])
        #expect(try toProto(#"{"keyId":"QQ=="}"#) == [0x22, 1, 0x41])
        #expect(try toProto(#"{"keyId":"QQ"}"#) == [0x22, 1, 0x41])
    }

    @Test("rejects malformed base64, naming the field")
    func badBase64() {
        for text in ["A", "QQ=", "Q===", "QR==", "a b", "a*bc", "QQ==QQ=="] {
            let status = failure(#"{"key_id":"\#(text)"}"#)
            #expect(status?.code == .invalidArgument, "\(text)")
            #expect(status?.message.contains("'key_id'") == true, "\(text)")
        }
    }

    @Test("reads and writes durations with fractional seconds")
    func durations() throws {
        #expect(try roundTrip(#"{"appCheckToken":{"token":"t","ttl":"300s"}}"#)
            == #"{"appCheckToken":{"token":"t","ttl":"300s"}}"#)
        #expect(try roundTrip(#"{"app_check_token":{"ttl":"1.5s"}}"#) == #"{"appCheckToken":{"ttl":"1.500s"}}"#)
        #expect(try roundTrip(#"{"app_check_token":{"ttl":"0.000001s"}}"#) == #"{"appCheckToken":{"ttl":"0.000001s"}}"#)
        #expect(try roundTrip(#"{"app_check_token":{"ttl":"2.123456789s"}}"#)
            == #"{"appCheckToken":{"ttl":"2.123456789s"}}"#)
        #expect(try roundTrip(#"{"app_check_token":{"ttl":"-0.5s"}}"#) == #"{"appCheckToken":{"ttl":"-0.500s"}}"#)
        #expect(try roundTrip(#"{"app_check_token":{"ttl":"0s"}}"#) == #"{"appCheckToken":{"ttl":"0s"}}"#)
        #expect(DurationText.parse("3600s")! == (3600, 0))
        #expect(DurationText.parse("1800.5s")! == (1800, 500_000_000))
    }

    @Test("rejects malformed durations, naming the field")
    func badDurations() {
        for text in ["300", "s", "1.s", ".5s", "1.1234567891s", "5m", "1e3s", "+1s", "315576000001s", "1,5s"] {
            let status = failure(#"{"appCheckToken":{"ttl":"\#(text)"}}"#)
            #expect(status?.code == .invalidArgument, "\(text)")
            #expect(status?.message.contains("'appCheckToken.ttl'") == true, "\(text)")
        }
        #expect(failure(#"{"appCheckToken":{"ttl":300}}"#)?.code == .invalidArgument)
    }

    @Test("reads and writes timestamps in RFC 3339")
    func timestamps() throws {
        #expect(try roundTrip(#"{"when":"2026-11-29T15:38:45Z"}"#) == #"{"when":"2026-11-29T15:38:45Z"}"#)
        #expect(try roundTrip(#"{"when":"2026-11-29T16:38:45.12+01:00"}"#) == #"{"when":"2026-11-29T15:38:45.120Z"}"#)
        #expect(try roundTrip(#"{"when":"1970-01-01T00:00:00Z"}"#) == #"{"when":"1970-01-01T00:00:00Z"}"#)
        #expect(try roundTrip(#"{"when":"1969-12-31T23:59:59Z"}"#) == #"{"when":"1969-12-31T23:59:59Z"}"#)
        #expect(try roundTrip(#"{"when":"2024-02-29T00:00:00Z"}"#) == #"{"when":"2024-02-29T00:00:00Z"}"#)
        #expect(TimestampText.parse("2026-11-29T15:38:45Z")?.seconds == 1_795_966_725)
        // Protobuf's Timestamp has no leap second, at most nine fraction digits and years 1 to 9999.
        for bad in ["2026-02-30T00:00:00Z", "2026-11-29 15:38:45Z", "2026-11-29T15:38:45", "2026-13-01T00:00:00Z",
                    "10000-01-01T00:00:00Z", "2026-11-29T24:00:00Z", "2026-12-31T23:59:60Z",
                    "2026-11-29T15:38:45.1234567891Z", "0000-12-31T23:59:59Z", "0001-01-01T00:00:00+00:01"] {
            #expect(failure(#"{"when":"\#(bad)"}"#)?.code == .invalidArgument, "\(bad)")
        }
        #expect(try roundTrip(#"{"when":"0001-01-01T00:00:00Z"}"#) == #"{"when":"0001-01-01T00:00:00Z"}"#)
        #expect(try roundTrip(#"{"when":"9999-12-31T23:59:59.999999999Z"}"#) == #"{"when":"9999-12-31T23:59:59.999999999Z"}"#)
    }

    @Test("answers INTERNAL for a Timestamp whose nanoseconds are a second or more, rather than writing it")
    func timestampNanosOutOfRange() {
        // Field 13 (`when`): a Timestamp with nanos = 1,000,000,000.
        let proto: [UInt8] = [0x6A, 0x06, 0x10, 0x80, 0x94, 0xEB, 0xDC, 0x03]
        #expect(throws: GRPCStatus.self) { try toJSON(proto) }
    }

    @Test("answers INTERNAL for a Duration no JSON text can say, rather than writing it")
    func durationOutOfRange() throws {
        // Field 9 (`app_check_token`) holding field 2 (`ttl`): a Duration with nanos = 1,000,000,000.
        let wholeSecondOfNanos: [UInt8] = [0x4A, 0x08, 0x12, 0x06, 0x10, 0x80, 0x94, 0xEB, 0xDC, 0x03]
        #expect(throws: GRPCStatus.self) { try toJSON(wholeSecondOfNanos) }
        // seconds = 1 and nanos = -1: the signs disagree.
        let mixedSigns: [UInt8] = [0x4A, 0x0F, 0x12, 0x0D, 0x08, 0x01, 0x10]
            + [UInt8](repeating: 0xFF, count: 9) + [0x01]
        #expect(throws: GRPCStatus.self) { try toJSON(mixedSigns) }
        // The same shapes in range still write.
        let inRange: [UInt8] = [0x4A, 0x0A, 0x12, 0x08, 0x08, 0x01, 0x10, 0x80, 0xCA, 0xB5, 0xEE, 0x01]
        #expect(try toJSON(inRange) == #"{"appCheckToken":{"ttl":"1.500s"}}"#)
    }

    @Test("accepts 64-bit integers as strings or numbers and writes them as strings")
    func int64() throws {
        #expect(try roundTrip(#"{"count":"9223372036854775807"}"#) == #"{"count":"9223372036854775807"}"#)
        #expect(try roundTrip(#"{"count":-42}"#) == #"{"count":"-42"}"#)
        #expect(try roundTrip(#"{"count":1e3}"#) == #"{"count":"1000"}"#)
        #expect(try roundTrip(#"{"big":"18446744073709551615"}"#) == #"{"big":"18446744073709551615"}"#)
        #expect(try roundTrip(#"{"small":-7,"counter":4294967295}"#) == #"{"small":-7,"counter":4294967295}"#)
        #expect(try roundTrip(#"{"numbers":[1,"-2",3]}"#) == #"{"numbers":["1","-2","3"]}"#)
        #expect(failure(#"{"count":"9223372036854775808"}"#)?.code == .invalidArgument)
        #expect(failure(#"{"small":2147483648}"#)?.code == .invalidArgument)
        #expect(failure(#"{"counter":-1}"#)?.code == .invalidArgument)
        #expect(failure(#"{"count":1.5}"#)?.code == .invalidArgument)
    }

    @Test("omits default values on output")
    func defaultsOmitted() throws {
        #expect(try roundTrip(#"{"app":"","limitedUse":false,"count":"0","keyId":"","status":"UNKNOWN"}"#) == "{}")
        #expect(try toJSON([]) == "{}")
        // A present sub-message is kept even when it is empty.
        #expect(try roundTrip(#"{"appCheckToken":{}}"#) == #"{"appCheckToken":{}}"#)
    }

    @Test("reads enums by name or number, writes names")
    func enums() throws {
        #expect(try roundTrip(#"{"status":"SERVING"}"#) == #"{"status":"SERVING"}"#)
        #expect(try roundTrip(#"{"status":1}"#) == #"{"status":"SERVING"}"#)
        #expect(try roundTrip(#"{"status":9}"#) == #"{"status":9}"#)
        #expect(failure(#"{"status":"BORED"}"#)?.message.contains("'status'") == true)
    }

    @Test("handles repeated messages and doubles")
    func repeatedAndDoubles() throws {
        #expect(try roundTrip(#"{"tokens":[{"token":"a"},{"token":"b","ttl":"3600s"}],"ratio":0.25}"#)
            == #"{"tokens":[{"token":"a"},{"token":"b","ttl":"3600s"}],"ratio":0.25}"#)
        #expect(try roundTrip(#"{"ratio":"NaN"}"#) == #"{"ratio":"NaN"}"#)
        #expect(try roundTrip(#"{"ratio":-3}"#) == #"{"ratio":-3}"#)
        #expect(failure(#"{"tokens":{"token":"a"}}"#)?.code == .invalidArgument)
        #expect(failure(#"{"ratio":1e400}"#)?.code == .invalidArgument)
        #expect(try roundTrip(#"{"ratio":"-Infinity"}"#) == #"{"ratio":"-Infinity"}"#)
    }

    @Test("ignores unknown fields and treats null as the default")
    func unknownAndNull() throws {
        #expect(try toProto(#"{"unknown":1,"nested":{"x":[1,2]},"app":null}"#) == [])
    }

    @Test("treats an absent body, whitespace and {} as the empty message")
    func emptyBodies() throws {
        #expect(try toProto("") == [])
        #expect(try toProto(" \r\n") == [])
        #expect(try toProto("{}") == [])
    }

    @Test("binds path parameters over the body")
    func pathParameters() throws {
        let parameter = PathParameter(field: "app", value: "projects/p/apps/1:2:ios:ab")
        #expect(try roundTrip2(#"{"app":"projects/x/apps/y","limited_use":true}"#, [parameter])
            == #"{"app":"projects/p/apps/1:2:ios:ab","limitedUse":true}"#)
        #expect(try toJSON(try toProto("", [parameter])) == #"{"app":"projects/p/apps/1:2:ios:ab"}"#)
    }

    private func roundTrip2(_ json: String, _ parameters: [PathParameter]) throws -> String {
        try toJSON(try toProto(json, parameters))
    }

    @Test("names the field of a wrong type")
    func wrongTypes() {
        let cases = [
            (#"{"app":5}"#, "'app'"), (#"{"limitedUse":"true"}"#, "'limitedUse'"), (#"{"key_id":7}"#, "'key_id'"),
            (#"{"appCheckToken":"x"}"#, "'appCheckToken'"), (#"{"appCheckToken":{"token":[]}}"#, "'appCheckToken.token'"),
            (#"{"count":true}"#, "'count'"), (#"{"ratio":{}}"#, "'ratio'"),
        ]
        for (json, name) in cases {
            let status = failure(json)
            #expect(status?.code == .invalidArgument, "\(json)")
            #expect(status?.message.contains(name) == true, "\(json): \(status?.message ?? "")")
        }
    }

    @Test("refuses bodies that are not a JSON object, and duplicate fields")
    func notObjects() {
        for json in ["[]", "\"x\"", "1", "null", "{", "{\"app\":}", "nonsense"] {
            let status = failure(json)
            #expect(status?.code == .invalidArgument, "\(json)")
            #expect(status?.message.hasPrefix("Invalid JSON payload received") == true, "\(json)")
        }
        #expect(failure(#"{"keyId":"AA","key_id":"AA"}"#)?.code == .invalidArgument)
    }

    @Test("refuses malformed protobuf on output with INTERNAL")
    func malformedProtobuf() {
        #expect(throws: GRPCStatus.self) { try toJSON([0x0A, 5, 1]) }
        #expect(throws: GRPCStatus.self) { try toJSON([0x0A]) }
        #expect(throws: GRPCStatus.self) { try toJSON([0x08, 1]) }  // varint where a string belongs
    }

    @Test("keeps the last occurrence of a singular field and skips unknown ones")
    func lastWins() throws {
        let proto: [UInt8] = [0x0A, 1, 0x61, 0xF8, 0x01, 5, 0x0A, 1, 0x62]  // app="a", field 31=5, app="b"
        #expect(try toJSON(proto) == #"{"app":"b"}"#)
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
