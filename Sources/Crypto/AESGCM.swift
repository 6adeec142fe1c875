internal import COpenSSL

/// AES-256-GCM authenticated encryption, for values the server seals and later reads back (artifacts).
public enum AESGCM {
    public static let keyCount = 32
    public static let nonceCount = 12
    public static let tagCount = 16

    /// AES-256-GCM fetched from the provider once: passing `EVP_aes_256_gcm()` makes OpenSSL 3 fetch it by name
    /// on every init (name lookups under locks), for every artifact sealed or opened.
    nonisolated(unsafe) static let cipher: OpaquePointer = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)!

    /// `ciphertext ‖ tag` of `plaintext`, authenticating `additionalData` too. The nonce must never repeat under
    /// one key: callers draw it at random (12 bytes, so about 2^32 seals per key stay safe).
    ///
    /// - Throws: `internalFailure` for a key that is not 32 bytes or a nonce that is not 12, or when OpenSSL fails
    ///   (which, with a valid key and nonce, only memory exhaustion makes it do).
    public static func seal(
        _ plaintext: some ContiguousBytes, key: some ContiguousBytes, nonce: some ContiguousBytes,
        authenticating additionalData: some ContiguousBytes
    ) throws(CryptoError) -> [UInt8] {
        guard key.withUnsafeBytes(\.count) == keyCount, nonce.withUnsafeBytes(\.count) == nonceCount else {
            throw CryptoError(.internalFailure, "AES-256-GCM takes a \(keyCount)-byte key and a \(nonceCount)-byte nonce")
        }
        OpenSSLErrorQueue.clear()
        let context = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(context) }
        var ok = context != nil
        let sealed = plaintext.withUnsafeBytes { plaintext in
            [UInt8](unsafeUninitializedCapacity: plaintext.count + tagCount) { out, initialized in
                // Never nil: the capacity holds the tag at least.
                guard let base = out.baseAddress, ok else { return }
                ok = key.withUnsafeBytes { key in
                    nonce.withUnsafeBytes { nonce in
                        EVP_EncryptInit_ex(context, cipher, nil, bytes(key), bytes(nonce)) == 1
                    }
                }
                var count: Int32 = 0
                ok = ok && additionalData.withUnsafeBytes { aad in
                    EVP_EncryptUpdate(context, nil, &count, bytes(aad), Int32(aad.count)) == 1
                }
                ok = ok && EVP_EncryptUpdate(context, base, &count, bytes(plaintext), Int32(plaintext.count)) == 1
                var final: Int32 = 0
                ok = ok && EVP_EncryptFinal_ex(context, base + Int(count), &final) == 1
                ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagCount), base + plaintext.count) == 1
                initialized = ok ? plaintext.count + tagCount : 0
            }
        }
        guard ok else { throw OpenSSLErrorQueue.error(.internalFailure, "AES-256-GCM sealing failed") }
        return sealed
    }

    /// The plaintext of `sealed` (`ciphertext ‖ tag`), or nil if it, the nonce or `additionalData` was changed.
    public static func open(
        _ sealed: some ContiguousBytes, key: some ContiguousBytes, nonce: some ContiguousBytes,
        authenticating additionalData: some ContiguousBytes
    ) -> [UInt8]? {
        guard key.withUnsafeBytes(\.count) == keyCount, nonce.withUnsafeBytes(\.count) == nonceCount else { return nil }
        let context = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(context) }
        return sealed.withUnsafeBytes { sealed -> [UInt8]? in
            guard sealed.count >= tagCount else { return nil }
            let ciphertextCount = sealed.count - tagCount
            var ok = true
            let plaintext = [UInt8](unsafeUninitializedCapacity: ciphertextCount + 1) { out, initialized in
                ok = key.withUnsafeBytes { key in
                    nonce.withUnsafeBytes { nonce in
                        EVP_DecryptInit_ex(context, cipher, nil, bytes(key), bytes(nonce)) == 1
                    }
                }
                var count: Int32 = 0
                ok = ok && additionalData.withUnsafeBytes { aad in
                    EVP_DecryptUpdate(context, nil, &count, bytes(aad), Int32(aad.count)) == 1
                }
                ok = ok && EVP_DecryptUpdate(context, out.baseAddress, &count, bytes(sealed), Int32(ciphertextCount)) == 1
                // The tag is set before the final call, which compares it in constant time.
                var tag = Array(sealed[ciphertextCount...])
                ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagCount), &tag) == 1
                var final: Int32 = 0
                ok = ok && EVP_DecryptFinal_ex(context, out.baseAddress! + Int(count), &final) == 1
                initialized = ok ? ciphertextCount : 0
            }
            if !ok { ERR_clear_error() }
            return ok ? plaintext : nil
        }
    }

    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}
