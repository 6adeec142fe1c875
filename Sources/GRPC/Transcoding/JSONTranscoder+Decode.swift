import Basics

// JSON → protobuf wire bytes.
extension JSONTranscoder {
    static func encodeMessage(
        _ members: [JSONMember],
        schema: MessageSchema,
        path: String,
        skipping bound: [String] = [],
        into writer: inout WireWriter
    ) throws(GRPCStatus) {
        var seen: [Int] = []
        for member in members {
            guard let index = schema.fieldIndex(forJSONKey: member.key) else { continue }  // unknown: ignored
            let field = schema.fields[index]
            let fieldPath = path.isEmpty ? member.key : path + "." + member.key
            guard !seen.contains(index) else {
                throw GRPCStatus(.invalidArgument, "Invalid JSON payload received: field '\(fieldPath)' is set twice.")
            }
            seen.append(index)
            if bound.contains(field.name) { continue }
            if case .null = member.value { continue }
            if field.isRepeated {
                guard case .array(let elements) = member.value else {
                    throw invalid(fieldPath, field.type, "expected a JSON array")
                }
                for element in elements {
                    try encodeValue(element, field: field, path: fieldPath, keepDefault: true, into: &writer)
                }
            } else {
                try encodeValue(member.value, field: field, path: fieldPath, keepDefault: false, into: &writer)
            }
        }
    }

    static func invalid(_ path: String, _ type: FieldType, _ reason: String) -> GRPCStatus {
        GRPCStatus(.invalidArgument, "Invalid value at '\(path)' (\(type.errorName)): \(reason).")
    }

    private static func encodeValue(
        _ value: JSONValue,
        field: FieldSchema,
        path: String,
        keepDefault: Bool,
        into writer: inout WireWriter
    ) throws(GRPCStatus) {
        let number = field.number
        switch field.type {
        case .string:
            guard case .string(let text) = value else { throw invalid(path, field.type, "expected a JSON string") }
            if keepDefault || !text.isEmpty { writer.lengthDelimited(number, text.utf8) }
        case .bytes:
            guard case .string(let text) = value else { throw invalid(path, field.type, "expected a base64 string") }
            guard let bytes = Base64.either.decode(text) else { throw invalid(path, field.type, "not valid base64") }
            if keepDefault || !bytes.isEmpty { writer.lengthDelimited(number, bytes) }
        case .bool:
            guard case .bool(let flag) = value else { throw invalid(path, field.type, "expected true or false") }
            if keepDefault || flag { writer.tag(number, .varint); writer.varint(flag ? 1 : 0) }
        case .int32, .sint32, .sfixed32:
            guard let n = integer(value, min: Int64(Int32.min), max: Int64(Int32.max)) else {
                throw invalid(path, field.type, "expected a 32-bit integer")
            }
            if keepDefault || n != 0 { writeSigned(n, field.type, number, into: &writer) }
        case .int64, .sint64, .sfixed64:
            guard let n = integer(value, min: Int64.min, max: Int64.max) else {
                throw invalid(path, field.type, "expected a 64-bit integer (a number or a decimal string)")
            }
            if keepDefault || n != 0 { writeSigned(n, field.type, number, into: &writer) }
        case .uint32, .fixed32:
            guard let n = unsignedInteger(value, max: UInt64(UInt32.max)) else {
                throw invalid(path, field.type, "expected an unsigned 32-bit integer")
            }
            if keepDefault || n != 0 {
                if case .fixed32 = field.type {
                    writer.tag(number, .fixed32); writer.fixed32(UInt32(n))
                } else {
                    writer.tag(number, .varint); writer.varint(n)
                }
            }
        case .uint64, .fixed64:
            guard let n = unsignedInteger(value, max: UInt64.max) else {
                throw invalid(path, field.type, "expected an unsigned 64-bit integer (a number or a decimal string)")
            }
            if keepDefault || n != 0 {
                if case .fixed64 = field.type {
                    writer.tag(number, .fixed64); writer.fixed64(n)
                } else {
                    writer.tag(number, .varint); writer.varint(n)
                }
            }
        case .double:
            guard let d = floatingPoint(value) else { throw invalid(path, field.type, "expected a number") }
            if keepDefault || d != 0 || d.sign == .minus { writer.tag(number, .fixed64); writer.fixed64(d.bitPattern) }
        case .float:
            guard let d = floatingPoint(value), d.isNaN || d.isInfinite || abs(d) <= Double(Float.greatestFiniteMagnitude)
            else { throw invalid(path, field.type, "expected a number in float range") }
            let f = Float(d)
            if keepDefault || f != 0 || f.sign == .minus { writer.tag(number, .fixed32); writer.fixed32(f.bitPattern) }
        case .enumeration(let schema):
            let n: Int32
            switch value {
            case .string(let name):
                guard let known = schema.number(for: name) else {
                    throw invalid(path, field.type, "unknown enum value \"\(name)\"")
                }
                n = known
            case .number:
                guard let integer = integer(value, min: Int64(Int32.min), max: Int64(Int32.max)) else {
                    throw invalid(path, field.type, "expected an enum name or a 32-bit integer")
                }
                n = Int32(integer)
            default:
                throw invalid(path, field.type, "expected an enum name")
            }
            if keepDefault || n != 0 { writer.tag(number, .varint); writer.varint(UInt64(bitPattern: Int64(n))) }
        case .message(let schema):
            var nested = WireWriter()
            try encodeNested(value, schema: schema, type: field.type, path: path, into: &nested)
            writer.lengthDelimited(number, nested.bytes)
        }
    }

    static func encodeNested(
        _ value: JSONValue,
        schema: MessageSchema,
        type: FieldType,
        path: String,
        into nested: inout WireWriter
    ) throws(GRPCStatus) {
        switch schema.fullName {
        case MessageSchema.durationName:
            guard case .string(let text) = value, let (seconds, nanos) = DurationText.parse(text) else {
                throw invalid(path, type, "expected a duration such as \"300s\" or \"1.5s\"")
            }
            writeSecondsAndNanos(seconds, nanos, into: &nested)
        case MessageSchema.timestampName:
            guard case .string(let text) = value, let (seconds, nanos) = TimestampText.parse(text) else {
                throw invalid(path, type, "expected an RFC 3339 timestamp such as \"2026-01-02T03:04:05Z\"")
            }
            writeSecondsAndNanos(seconds, nanos, into: &nested)
        default:
            guard case .object(let members) = value else { throw invalid(path, type, "expected a JSON object") }
            try encodeMessage(members, schema: schema, path: path, into: &nested)
        }
    }

    private static func writeSecondsAndNanos(_ seconds: Int64, _ nanos: Int32, into writer: inout WireWriter) {
        if seconds != 0 { writer.tag(1, .varint); writer.varint(UInt64(bitPattern: seconds)) }
        if nanos != 0 { writer.tag(2, .varint); writer.varint(UInt64(bitPattern: Int64(nanos))) }
    }

    private static func writeSigned(_ n: Int64, _ type: FieldType, _ number: Int, into writer: inout WireWriter) {
        switch type {
        case .sint32, .sint64:
            writer.tag(number, .varint)
            writer.varint(UInt64(bitPattern: (n << 1) ^ (n >> 63)))
        case .sfixed32:
            writer.tag(number, .fixed32)
            writer.fixed32(UInt32(bitPattern: Int32(n)))
        case .sfixed64:
            writer.tag(number, .fixed64)
            writer.fixed64(UInt64(bitPattern: n))
        default:
            writer.tag(number, .varint)
            writer.varint(UInt64(bitPattern: n))  // int32 is sign-extended to 64 bits, as the encoding requires
        }
    }

    /// The integer a JSON number or decimal string holds, when it is one within `min...max` (an exponent or
    /// fraction is accepted when the value is integral, as the proto3 JSON mapping allows).
    private static func integer(_ value: JSONValue, min: Int64, max: Int64) -> Int64? {
        let text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default: return nil
        }
        if let n = Int64(text) { return n >= min && n <= max ? n : nil }
        guard case .number = value, let d = Double(text), d.rounded() == d,
              d >= Double(min), d < Double(max) + 1, abs(d) < 9_007_199_254_740_992 else { return nil }
        return Int64(d)
    }

    private static func unsignedInteger(_ value: JSONValue, max: UInt64) -> UInt64? {
        let text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default: return nil
        }
        if let n = UInt64(text) { return n <= max ? n : nil }
        guard case .number = value, let d = Double(text), d.rounded() == d, d >= 0,
              d <= Double(max), d < 9_007_199_254_740_992 else { return nil }
        return UInt64(d)
    }

    private static func floatingPoint(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let text):
            // A literal too large for a double is out of range, not infinity.
            guard let d = Double(text), d.isFinite else { return nil }
            return d
        case .string(let text):
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                guard let d = Double(text), d.isFinite else { return nil }
                return d
            }
        default:
            return nil
        }
    }
}
