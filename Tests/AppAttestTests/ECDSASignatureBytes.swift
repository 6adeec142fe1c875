import Testing

/// ECDSA signatures written and taken apart byte by byte, and the big-endian arithmetic the tests of the table-driven
/// verifications (P-384 and P-256) build their out-of-range r and s with.
enum ECDSASignatureBytes {
    /// The DER INTEGER of a non-negative big-endian number.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }

    /// The DER ECDSA-Sig-Value of r and s.
    static func signature(r: [UInt8], s: [UInt8]) -> [UInt8] {
        let body = integer(r) + integer(s)
        return [0x30, UInt8(body.count)] + body
    }

    /// r and s of a DER signature as big-endian bytes.
    static func parts(_ signature: some Collection<UInt8>) throws -> (r: [UInt8], s: [UInt8]) {
        let bytes = Array(signature)
        try #require(bytes[0] == 0x30 && bytes[2] == 0x02)
        let rLength = Int(bytes[3])
        let r = Array(bytes[4..<(4 + rLength)])
        try #require(bytes[4 + rLength] == 0x02)
        let sLength = Int(bytes[5 + rLength])
        let s = Array(bytes[(6 + rLength)..<(6 + rLength + sLength)])
        return (r, s)
    }

    /// a ± b for big-endian numbers of at most 49 bytes (enough for n + s on P-384), 50 bytes wide.
    static func add(_ a: [UInt8], _ b: [UInt8], subtract: Bool = false) -> [UInt8] {
        let width = 50
        let x = Array(repeating: 0, count: width - a.count) + a, y = Array(repeating: 0, count: width - b.count) + b
        var result = [UInt8](repeating: 0, count: width)
        var carry = 0
        for index in stride(from: width - 1, through: 0, by: -1) {
            let sum = subtract ? Int(x[index]) - Int(y[index]) + carry : Int(x[index]) + Int(y[index]) + carry
            result[index] = UInt8((sum + 256) % 256)
            carry = subtract ? (sum < 0 ? -1 : 0) : sum / 256
        }
        return result
    }
}
