import Crypto

/// The SHA-256 of a token, as the cache's key: 32 bytes in four words, hashed and compared without allocating.
struct TokenDigest: Hashable, Sendable {
    let a: UInt64, b: UInt64, c: UInt64, d: UInt64

    init(token: String) {
        var token = token
        let digest = token.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0)) }
        func word(_ at: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in at..<at + 8 { value = value << 8 | UInt64(digest[i]) }
            return value
        }
        (a, b, c, d) = (word(0), word(8), word(16), word(24))
    }
}
