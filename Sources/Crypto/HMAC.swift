internal import COpenSSL

/// HMAC-SHA256, which authenticates stateless challenges so that any node holding the key can check one.
public enum HMACSHA256 {
    public static let tagCount = 32

    /// The HMAC-SHA256 tag of `message` under `key`.
    public static func authenticate(_ message: some ContiguousBytes, key: some ContiguousBytes) -> [UInt8] {
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                [UInt8](unsafeUninitializedCapacity: tagCount) { out, count in
                    var length: UInt32 = 0
                    _ = HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        out.baseAddress, &length)
                    count = Int(length)
                }
            }
        }
    }
}
