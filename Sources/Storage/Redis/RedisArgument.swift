/// What a command argument may be: Redis takes every argument as a byte string, written here straight into the
/// command buffer as a RESP bulk string (`$<length>\r\n<bytes>\r\n`), with no intermediate copy.
protocol RedisArgument: Sendable {
    func appendRESP(to output: inout [UInt8])
}

extension RedisArgument {
    /// Appends `$<count>\r\n`, the head of a bulk string.
    static func appendBulkHeader(count: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "$"))
        RESP.appendDecimal(count, to: &output)
        output.append(contentsOf: RESP.lineEnd)
    }
}

extension String: RedisArgument {
    func appendRESP(to output: inout [UInt8]) {
        Self.appendBulkHeader(count: utf8.count, to: &output)
        output.append(contentsOf: utf8)
        output.append(contentsOf: RESP.lineEnd)
    }
}

extension Array: RedisArgument where Element == UInt8 {
    func appendRESP(to output: inout [UInt8]) {
        Self.appendBulkHeader(count: count, to: &output)
        output.append(contentsOf: self)
        output.append(contentsOf: RESP.lineEnd)
    }
}

extension Int: RedisArgument {
    func appendRESP(to output: inout [UInt8]) {
        Int64(self).appendRESP(to: &output)
    }
}

extension Int64: RedisArgument {
    func appendRESP(to output: inout [UInt8]) {
        var digits = RESP.Digits()
        let count = digits.render(self)
        Self.appendBulkHeader(count: count, to: &output)
        digits.append(count, to: &output)
        output.append(contentsOf: RESP.lineEnd)
    }
}
