import COpenSSL

/// A TLS 1.3 cipher suite that attestd's record layer protects records with (RFC 8446 §B.4): all three that
/// OpenSSL 3.0 enables by default.
enum TLS13Suite: Sendable {
    case aes128GCM
    case aes256GCM
    case chaCha20Poly1305

    /// The suite with this IANA code point (`SSL_CIPHER_get_protocol_id`), or nil for any other.
    init?(protocolID: UInt16) {
        switch protocolID {
        case 0x1301: self = .aes128GCM
        case 0x1302: self = .aes256GCM
        case 0x1303: self = .chaCha20Poly1305
        default: return nil
        }
    }

    var keyLength: Int { self == .aes128GCM ? 16 : 32 }
    /// The handshake hash's output length, which is also the length of every traffic secret.
    var secretLength: Int { self == .aes256GCM ? 48 : 32 }

    /// The handshake hash (HKDF's).
    var digest: OpaquePointer? { self == .aes256GCM ? EVP_sha384() : EVP_sha256() }

    /// The AEAD, fetched from the provider once per process instead of at every key change.
    var cipher: OpaquePointer? {
        switch self {
        case .aes128GCM: TLS13Suite.fetched.aes128GCM
        case .aes256GCM: TLS13Suite.fetched.aes256GCM
        case .chaCha20Poly1305: TLS13Suite.fetched.chaCha20Poly1305
        }
    }

    /// `nonisolated(unsafe)`: written once, by the lazy initialiser, and only read after; OpenSSL's fetched
    /// ciphers may be shared by threads.
    private nonisolated(unsafe) static let fetched = (
        aes128GCM: EVP_CIPHER_fetch(nil, "AES-128-GCM", nil),
        aes256GCM: EVP_CIPHER_fetch(nil, "AES-256-GCM", nil),
        chaCha20Poly1305: EVP_CIPHER_fetch(nil, "ChaCha20-Poly1305", nil)
    )
}

/// One direction's protection: the traffic secret (kept for KeyUpdate), the AEAD keyed from it, the static IV and
/// the record sequence number (RFC 8446 §5.3, §7.3). Owned by one `TLS13Records`, which frees it.
struct TLS13TrafficKeys {
    static let tagLength = 16

    let suite: TLS13Suite
    private let context: OpaquePointer
    private var secret: [UInt8]
    /// The 12-byte IV as its first 4 bytes and last 8 (big-endian), so a nonce is two XORs away.
    private var ivHead: UInt32 = 0
    private var ivTail: UInt64 = 0
    /// Records protected (or opened) with the current key.
    private(set) var sequence: UInt64 = 0
    private let encrypts: Int32

    /// Keys for `secret` (its length must be the suite's hash length); nil when OpenSSL fails.
    init?(suite: TLS13Suite, secret: [UInt8], encrypts: Bool) {
        guard secret.count == suite.secretLength, let cipher = suite.cipher, let context = EVP_CIPHER_CTX_new() else {
            return nil
        }
        self.suite = suite
        self.context = context
        self.secret = secret
        self.encrypts = encrypts ? 1 : 0
        guard EVP_CipherInit_ex(context, cipher, nil, nil, nil, self.encrypts) == 1, rekey() else {
            free()
            return nil
        }
    }

    /// Frees the AEAD context and wipes the secret (the owner's `deinit`).
    mutating func free() {
        EVP_CIPHER_CTX_free(context)
        secret.wipe()
    }

    /// KeyUpdate (RFC 8446 §7.2): the next secret is HKDF-Expand-Label(secret, "traffic upd", "", Hash.length);
    /// keys, IV and sequence number follow it.
    mutating func update() -> Bool {
        guard let next = Self.expandLabel(secret, "traffic upd", length: suite.secretLength, suite: suite) else {
            return false
        }
        secret.wipe()
        secret = next
        return rekey()
    }

    /// Protects `inner` bytes (content and content type) in place at `record + 5`, writing the header before them
    /// and the tag after: the record is `5 + inner + 16` bytes.
    mutating func seal(record: UnsafeMutableRawPointer, innerLength: Int) -> Bool {
        let length = innerLength + Self.tagLength
        record.storeBytes(of: 23, as: UInt8.self)  // opaque_type: application_data
        record.storeBytes(of: 0x03, toByteOffset: 1, as: UInt8.self)
        record.storeBytes(of: 0x03, toByteOffset: 2, as: UInt8.self)
        record.storeBytes(of: UInt8(length >> 8), toByteOffset: 3, as: UInt8.self)
        record.storeBytes(of: UInt8(length & 0xFF), toByteOffset: 4, as: UInt8.self)
        let body = record + 5
        var written: Int32 = 0
        let done = withNonce { nonce in
            EVP_CipherInit_ex(context, nil, nil, nil, nonce, encrypts) == 1
                && EVP_CipherUpdate(context, nil, &written, record, 5) == 1
                && EVP_CipherUpdate(context, body, &written, body, Int32(innerLength)) == 1
                && EVP_CipherFinal_ex(context, body + innerLength, &written) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength), body + innerLength) == 1
        }
        if done { sequence += 1 }
        return done
    }

    /// A whole record holding `content`, then `contentType`, then `padding` zeros, in an array of its own: for peers
    /// that send the record layer what it must open (the fuzzer's, and tests'). Nil when sealing fails.
    mutating func sealedRecord(content: [UInt8], contentType: UInt8, padding: Int) -> [UInt8]? {
        let inner = content + [contentType] + [UInt8](repeating: 0, count: padding)
        var record = [UInt8](repeating: 0, count: 5 + inner.count + Self.tagLength)
        record.replaceSubrange(5..<5 + inner.count, with: inner)
        let sealed = record.withUnsafeMutableBytes { seal(record: $0.baseAddress!, innerLength: inner.count) }
        return sealed ? record : nil
    }

    /// Opens the record at `record` (header, then `length` bytes of ciphertext and tag) in place: the inner
    /// plaintext, `length - 16` bytes, is left at `record + 5`. False when the record fails authentication.
    mutating func open(record: UnsafeMutableRawPointer, length: Int) -> Bool {
        guard length >= Self.tagLength else { return false }
        let body = record + 5
        let innerLength = length - Self.tagLength
        var written: Int32 = 0
        let done = withNonce { nonce in
            EVP_CipherInit_ex(context, nil, nil, nil, nonce, encrypts) == 1
                && EVP_CipherUpdate(context, nil, &written, record, 5) == 1
                && EVP_CipherUpdate(context, body, &written, body, Int32(innerLength)) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength), body + innerLength) == 1
                && EVP_CipherFinal_ex(context, body + innerLength, &written) == 1
        }
        if done { sequence += 1 }
        return done
    }

    /// The per-record nonce: the IV XOR the sequence number, left-padded to 12 bytes (RFC 8446 §5.3).
    private func withNonce(_ body: (UnsafePointer<UInt8>) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 12, alignment: 8) { nonce in
            nonce.storeBytes(of: ivHead.bigEndian, toByteOffset: 0, as: UInt32.self)
            nonce.storeBytes(of: (ivTail ^ sequence).bigEndian, toByteOffset: 4, as: UInt64.self)
            return body(nonce.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Derives key and IV from the current secret, and starts the sequence over.
    private mutating func rekey() -> Bool {
        guard var key = Self.expandLabel(secret, "key", length: suite.keyLength, suite: suite),
            let iv = Self.expandLabel(secret, "iv", length: 12, suite: suite)
        else { return false }
        defer { key.wipe() }
        ivHead = iv[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        ivTail = iv[4..<12].reduce(0) { $0 << 8 | UInt64($1) }
        sequence = 0
        return EVP_CipherInit_ex(context, nil, nil, key, nil, encrypts) == 1
    }

    /// HKDF-Expand-Label(secret, label, "", length) (RFC 8446 §7.1), for lengths up to the hash's: one HMAC of the
    /// HkdfLabel and the counter byte 1.
    static func expandLabel(_ secret: [UInt8], _ label: String, length: Int, suite: TLS13Suite) -> [UInt8]? {
        precondition(length <= suite.secretLength)
        let fullLabel = Array("tls13 \(label)".utf8)
        let info = [UInt8(length >> 8), UInt8(length & 0xFF), UInt8(fullLabel.count)] + fullLabel + [0, 1]
        var output = [UInt8](repeating: 0, count: 64)
        var outputLength: UInt32 = 0
        let done = secret.withUnsafeBytes { key in
            HMAC(suite.digest, key.baseAddress, Int32(key.count), info, info.count, &output, &outputLength) != nil
        }
        guard done, Int(outputLength) == suite.secretLength else { return nil }
        defer { output.wipe() }
        return Array(output[0..<length])
    }
}

extension [UInt8] {
    /// Overwrites the bytes with zeros in a way the compiler cannot drop (`OPENSSL_cleanse`), for keys and secrets
    /// before their memory is let go. A buffer shared with another array is copied first, and only the copy wiped:
    /// the other holder wipes its own.
    mutating func wipe() {
        withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
