internal import COpenSSL

/// A private key that makes JWS signatures: RSA (2048 bits or more) for RS256, or EC P-256 for ES256.
///
/// Every signature is OpenSSL's (`EVP_PKEY_sign` over the SHA-256 digest, through the shared libcrypto). For ES256
/// that includes the nonce: OpenSSL 3.0 makes each ECDSA nonce when it signs, from SHA-512 over a counter, the
/// private key, the digest being signed and 64 fresh bytes from its private DRBG (its `BN_generate_dsa_nonce`
/// construction), so a repeated DRBG state alone does not make one nonce sign two different messages. Nothing is
/// drawn ahead of time or kept between signatures.
///
/// Immutable and safe to use from many threads at once: OpenSSL's `EVP_PKEY` is reference-counted and only read
/// while signing, and each signature borrows a signing context that no other thread uses meanwhile.
public final class PrivateKey: @unchecked Sendable {
    /// `EVP_PKEY *`, owned (one reference).
    private let key: OpaquePointer
    /// The one algorithm this key signs with.
    public let algorithm: SigningAlgorithm
    /// The matching public key.
    public let publicKey: JWSPublicKey
    /// Signing contexts over `key`, each set up once (PKCS#1 v1.5 or ECDSA, SHA-256).
    private let signers: PKeyContextPool
    /// The largest signature `key` makes: the modulus size (RSA), or a DER ECDSA-Sig-Value (P-256).
    private let signatureCapacity: Int

    /// Reads a PEM private key: PKCS#8 (`PRIVATE KEY`) or traditional (`RSA PRIVATE KEY`, `EC PRIVATE KEY`),
    /// unencrypted. An encrypted key is refused as unreadable.
    public convenience init(pem: String) throws(PrivateKeyError) {
        OpenSSLErrorQueue.clear()
        // The callback answers "no passphrase": without one OpenSSL would prompt on the terminal, blocking a server.
        guard let key = PEM.withReadBIO(pem, { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) ?? nil else {
            throw PrivateKeyError.unreadable.with(detail: OpenSSLErrorQueue.drain())
        }
        try self.init(owning: key)
    }

    /// A new random key for `algorithm`: RSA-2048 or P-256.
    public static func generate(_ algorithm: SigningAlgorithm) throws(PrivateKeyError) -> PrivateKey {
        OpenSSLErrorQueue.clear()
        let context: OpaquePointer?
        switch algorithm {
        case .rs256: context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil)
        case .es256: context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
        }
        guard let context else { throw PrivateKeyError.generationFailed.with(detail: OpenSSLErrorQueue.drain()) }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let configured: Bool
        switch algorithm {
        case .rs256: configured = EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) == 1
        case .es256: configured = EVP_PKEY_keygen_init(context) == 1 && EVP_PKEY_CTX_set_group_name(context, "P-256") == 1
        }
        guard configured, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw PrivateKeyError.generationFailed.with(detail: OpenSSLErrorQueue.drain())
        }
        return try PrivateKey(owning: key)
    }

    private init(owning key: OpaquePointer) throws(PrivateKeyError) {
        guard let (algorithm, _) = JWSPublicKey.describe(key) else {
            let weak = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA
            EVP_PKEY_free(key)
            throw weak ? .tooWeak : .unsupported
        }
        // The public half shares the EVP_PKEY: verification only reads its public part.
        EVP_PKEY_up_ref(key)
        do {
            self.publicKey = try JWSPublicKey(owning: key)
        } catch {
            EVP_PKEY_free(key)
            throw .unsupported
        }
        self.key = key
        self.algorithm = algorithm
        self.signatureCapacity = Int(EVP_PKEY_get_size(key))
        let owned = OwnedKey(pointer: key)
        self.signers = PKeyContextPool { PrivateKey.makeSigner(owned.pointer, algorithm: algorithm) }
    }

    /// A context ready to sign SHA-256 digests with `key`.
    private static func makeSigner(_ key: OpaquePointer, algorithm: SigningAlgorithm) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        var ready = EVP_PKEY_sign_init(context) == 1 && EVP_PKEY_CTX_set_signature_md(context, SHA256.algorithm) == 1
        if ready && algorithm == .rs256 { ready = EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 }
        guard ready else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    deinit { EVP_PKEY_free(key) }

    /// The JWS signature of `message`: PKCS#1 v1.5 over SHA-256 for RS256, r‖s (64 bytes) for ES256.
    public func sign(_ message: some ContiguousBytes) throws(PrivateKeyError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        let maximumCount = signatureCapacity
        // SHA-256 here, then a raw signature over the digest with a context set up once: the same signature
        // EVP_DigestSign makes, without OpenSSL 3.0's per-call algorithm fetches.
        let signature: [UInt8]? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256.digestCount) { digest in
            message.withUnsafeBytes { SHA256.hash($0, into: digest.baseAddress!) }
            return signers.withContext { context -> [UInt8]? in
                var failed = false
                let output = [UInt8](unsafeUninitializedCapacity: maximumCount) { out, initialized in
                    var count = maximumCount
                    failed = EVP_PKEY_sign(context, out.baseAddress, &count, digest.baseAddress, digest.count) != 1
                    initialized = failed ? 0 : count
                }
                return failed ? nil : output
            } ?? nil
        }
        guard let signature else { throw PrivateKeyError.signingFailed.with(detail: OpenSSLErrorQueue.drain()) }
        switch algorithm {
        case .rs256: return signature
        case .es256:
            guard let raw = SigningSignatureEncoding.raw(fromDER: signature) else { throw PrivateKeyError.signingFailed }
            return raw
        }
    }

    /// The key as unencrypted PKCS#8 PEM (`PRIVATE KEY`), for writing a key file.
    public func pem() -> String {
        PEM.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) } ?? ""
    }
}

/// The `EVP_PKEY *` a signing pool builds its contexts over; it outlives them (each context holds a reference).
private struct OwnedKey: @unchecked Sendable {
    let pointer: OpaquePointer
}
