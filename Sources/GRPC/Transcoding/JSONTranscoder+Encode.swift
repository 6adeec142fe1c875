// Protobuf wire bytes → JSON.
extension JSONTranscoder {
    static func writeMessage(_ reader: WireReader, schema: MessageSchema, into out: inout JSONWriter) throws(GRPCStatus) {
        switch schema.fullName {
        case MessageSchema.durationName:
            let (seconds, nanos) = try secondsAndNanos(reader)
            // Out of the type's range, or seconds and nanos of opposite signs: no JSON text says that.
            guard seconds.magnitude <= DurationText.maxSeconds, nanos.magnitude <= 999_999_999,
                  !(seconds > 0 && nanos < 0), !(seconds < 0 && nanos > 0) else {
                throw GRPCStatus(.internal, "Duration out of range: \(seconds) s, \(nanos) ns.")
            }
            out.appendString(DurationText.format(seconds: seconds, nanos: nanos))
            return
        case MessageSchema.timestampName:
            let (seconds, nanos) = try secondsAndNanos(reader)
            guard seconds >= TimestampText.minSeconds, seconds <= TimestampText.maxSeconds, (0...999_999_999).contains(nanos) else {
                throw GRPCStatus(.internal, "Timestamp out of range: \(seconds) s, \(nanos) ns.")
            }
            out.appendString(TimestampText.format(seconds: seconds, nanos: nanos))
            return
        default:
            break
        }
        // One pass records every field occurrence; fields are then written in schema order, the last occurrence
        // of a singular field winning, as protobuf parsing requires.
        var reader = reader
        var occurrences: [(field: Int, value: WireValue)] = []
        while !reader.isAtEnd {
            let (number, value) = try reader.field()
            if let index = schema.fieldIndex(forNumber: number) { occurrences.append((index, value)) }
        }
        out.appendRaw("{")
        var first = true
        for (index, field) in schema.fields.enumerated() {
            if field.isRepeated {
                var wroteAny = false
                for occurrence in occurrences where occurrence.field == index {
                    try writeRepeated(occurrence.value, field: field, reader: reader, first: &first,
                                      wroteAny: &wroteAny, into: &out)
                }
                if wroteAny { out.appendRaw("]") }
            } else if let last = occurrences.last(where: { $0.field == index }) {
                if isDefault(last.value, field.type) { continue }
                writeKey(field, first: &first, into: &out)
                try writeValue(last.value, type: field.type, reader: reader, into: &out)
            }
        }
        out.appendRaw("}")
    }

    private static func writeKey(_ field: FieldSchema, first: inout Bool, into out: inout JSONWriter) {
        if !first { out.appendRaw(",") }
        first = false
        out.appendString(field.jsonName)
        out.appendRaw(":")
    }

    private static func writeRepeated(
        _ value: WireValue,
        field: FieldSchema,
        reader: WireReader,
        first: inout Bool,
        wroteAny: inout Bool,
        into out: inout JSONWriter
    ) throws(GRPCStatus) {
        func separator() {
            if wroteAny {
                out.appendRaw(",")
            } else {
                writeKey(field, first: &first, into: &out)
                out.appendRaw("[")
                wroteAny = true
            }
        }
        // Repeated numeric fields arrive packed (one length-delimited run) or one by one; both are valid.
        if case .lengthDelimited(let range) = value, field.type.isPackable {
            var packed = WireReader(reader.bytes, range: range)
            while !packed.isAtEnd {
                let element: WireValue
                switch field.type.wireType {
                case .fixed32:
                    guard packed.bytes.count - packed.index >= 4 else { throw WireReader.malformed }
                    element = .fixed32(UInt32(littleEndian: packed.bytes.loadUnaligned(fromByteOffset: packed.index, as: UInt32.self)))
                    packed.index += 4
                case .fixed64:
                    guard packed.bytes.count - packed.index >= 8 else { throw WireReader.malformed }
                    element = .fixed64(UInt64(littleEndian: packed.bytes.loadUnaligned(fromByteOffset: packed.index, as: UInt64.self)))
                    packed.index += 8
                default:
                    element = .varint(try packed.varint())
                }
                separator()
                try writeValue(element, type: field.type, reader: reader, into: &out)
            }
            return
        }
        separator()
        try writeValue(value, type: field.type, reader: reader, into: &out)
    }

    private static func isDefault(_ value: WireValue, _ type: FieldType) -> Bool {
        if case .message = type { return false }  // a present sub-message is written, even when empty
        switch value {
        case .varint(let n): return n == 0
        case .fixed32(let n): return n == 0
        case .fixed64(let n): return n == 0
        case .lengthDelimited(let range): return range.isEmpty
        }
    }

    private static func writeValue(
        _ value: WireValue,
        type: FieldType,
        reader: WireReader,
        into out: inout JSONWriter
    ) throws(GRPCStatus) {
        switch (type, value) {
        case (.string, .lengthDelimited(let range)):
            let text = UnsafeRawBufferPointer(rebasing: reader.bytes[range])
            guard let string = String(validating: text, as: UTF8.self) else {
                throw GRPCStatus(.internal, "A string field holds bytes that are not UTF-8.")
            }
            out.appendString(string)
        case (.bytes, .lengthDelimited(let range)):
            out.appendBase64String(UnsafeRawBufferPointer(rebasing: reader.bytes[range]))
        case (.message(let schema), .lengthDelimited(let range)):
            try writeMessage(WireReader(reader.bytes, range: range), schema: schema, into: &out)
        case (.bool, .varint(let n)):
            out.appendRaw(n != 0 ? "true" : "false")
        case (.int32, .varint(let n)):
            out.appendRaw(String(Int32(truncatingIfNeeded: n)).utf8)
        case (.sint32, .varint(let n)):
            out.appendRaw(String(Int32(truncatingIfNeeded: Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1))).utf8)
        case (.uint32, .varint(let n)):
            out.appendRaw(String(UInt32(truncatingIfNeeded: n)).utf8)
        case (.int64, .varint(let n)):
            out.appendString(String(Int64(bitPattern: n)))
        case (.sint64, .varint(let n)):
            out.appendString(String(Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1)))
        case (.uint64, .varint(let n)):
            out.appendString(String(n))
        case (.enumeration(let schema), .varint(let n)):
            let number = Int32(truncatingIfNeeded: n)
            if let name = schema.name(for: number) { out.appendString(name) } else { out.appendRaw(String(number).utf8) }
        case (.fixed32, .fixed32(let n)):
            out.appendRaw(String(n).utf8)
        case (.sfixed32, .fixed32(let n)):
            out.appendRaw(String(Int32(bitPattern: n)).utf8)
        case (.float, .fixed32(let n)):
            writeFloatingPoint(Double(Float(bitPattern: n)), into: &out)
        case (.fixed64, .fixed64(let n)):
            out.appendString(String(n))
        case (.sfixed64, .fixed64(let n)):
            out.appendString(String(Int64(bitPattern: n)))
        case (.double, .fixed64(let n)):
            writeFloatingPoint(Double(bitPattern: n), into: &out)
        default:
            throw GRPCStatus(.internal, "A protobuf field has the wrong wire type for \(type.errorName).")
        }
    }

    private static func writeFloatingPoint(_ d: Double, into out: inout JSONWriter) {
        if d.isNaN {
            out.appendRaw("\"NaN\"")
        } else if d.isInfinite {
            out.appendRaw(d < 0 ? "\"-Infinity\"" : "\"Infinity\"")
        } else if d == d.rounded(), abs(d) < 1e15 {
            out.appendRaw(String(Int64(d)).utf8)
        } else {
            out.appendRaw(String(d).utf8)
        }
    }

    private static func secondsAndNanos(_ reader: WireReader) throws(GRPCStatus) -> (Int64, Int32) {
        var reader = reader
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        while !reader.isAtEnd {
            switch try reader.field() {
            case (1, .varint(let n)): seconds = Int64(bitPattern: n)
            case (2, .varint(let n)): nanos = Int32(truncatingIfNeeded: n)
            default: break
            }
        }
        return (seconds, nanos)
    }
}

extension FieldType {
    /// Whether repeated values of this type may be packed.
    var isPackable: Bool {
        switch self {
        case .string, .bytes, .message: false
        default: true
        }
    }

    var wireType: WireType {
        switch self {
        case .fixed32, .sfixed32, .float: .fixed32
        case .fixed64, .sfixed64, .double: .fixed64
        case .string, .bytes, .message: .lengthDelimited
        default: .varint
        }
    }
}
