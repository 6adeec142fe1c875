internal import COpenSSL
internal import CShimsOpenSSL
import Synchronization

/// Verifies certificate chains to a fixed set of trust anchors, remembering the intermediates it has verified.
///
/// The first chain through an intermediate is verified in full by OpenSSL (`X509_verify_cert`, no purpose, no CRL).
/// The intermediate is then cached, keyed by the SHA-256 of its DER, with its key, its subject and the validity
/// window it shares with the rest of its chain. A later leaf naming it is checked for its own signature and
/// validity only: one signature verification instead of two, and no OpenSSL decoding of either certificate. That
/// verification is OpenSSL's (`EVP_PKEY_verify`) under the intermediate's key, parsed once and kept with the entry.
/// A cached intermediate is used only when the verification time falls inside its window; anything the short path
/// declines goes through the full verification. The cache is bounded (least recently used goes first) and safe
/// to share between threads.
public final class TrustStore: Sendable {
    /// How often the cache answered, for tests and metrics.
    public struct Statistics: Sendable, Equatable {
        /// Chains verified through a cached intermediate (or a remembered leaf).
        public var hits: Int
        /// Chains verified in full.
        public var misses: Int
        /// Certificates currently cached.
        public var cached: Int

        public init(hits: Int, misses: Int, cached: Int) {
            self.hits = hits
            self.misses = misses
            self.cached = cached
        }
    }

    /// The most certificates the cache holds; 0 disables caching.
    public let capacity: Int
    private let anchors: X509Store
    private let state: Mutex<Cache>

    /// A store trusting exactly `anchorsDER` (DER certificates), caching up to `capacity` verified certificates.
    public init(anchorsDER: [[UInt8]], capacity: Int = 64) throws(CryptoError) {
        var certificates: [Certificate] = []
        for der in anchorsDER { certificates.append(try Certificate(derEncoded: der)) }
        self.anchors = try X509Store(trusting: certificates)
        self.capacity = max(0, capacity)
        self.state = Mutex(Cache())
    }

    /// The cache counters.
    public var statistics: Statistics {
        state.withLock { Statistics(hits: $0.hits, misses: $0.misses, cached: $0.entries.count) }
    }

    /// Verifies that `leaf` chains to a trust anchor at `time` (Unix seconds), through `intermediatesDER` (untrusted,
    /// any order). Returns whether the cache answered.
    ///
    /// With `rememberLeaf`, a leaf that verified is cached too, so the same leaf later verifies with no signature
    /// check at all: for long-lived signing certificates (a receipt signer) rather than per-device leaves.
    @discardableResult
    public func verify(
        leaf: Certificate, intermediatesDER: [[UInt8]], at time: Int64, rememberLeaf: Bool = false
    ) throws(CryptoError) -> ChainVerification {
        try verify(leafDER: leaf.derEncoded, parsed: leaf, intermediatesDER: intermediatesDER, at: time,
                   rememberLeaf: rememberLeaf)
    }

    /// As `verify(leaf:…)`, for a leaf still in DER: on a cache hit OpenSSL never decodes it, which in OpenSSL 3.0
    /// costs more than the signature check itself.
    @discardableResult
    public func verify(
        leafDER: [UInt8], intermediatesDER: [[UInt8]], at time: Int64, rememberLeaf: Bool = false
    ) throws(CryptoError) -> ChainVerification {
        try verify(leafDER: leafDER, parsed: nil, intermediatesDER: intermediatesDER, at: time, rememberLeaf: rememberLeaf)
    }

    /// As `verify(leafDER:…)`, for a leaf its caller has already read.
    @discardableResult
    public func verify(
        leaf: DERCertificate, intermediatesDER: [[UInt8]], at time: Int64, rememberLeaf: Bool = false
    ) throws(CryptoError) -> ChainVerification {
        try verify(
            leafDER: leaf.encoded, parsed: nil, fields: leaf, intermediatesDER: intermediatesDER, at: time,
            rememberLeaf: rememberLeaf)
    }

    private func verify(
        leafDER: [UInt8], parsed: Certificate?, fields: DERCertificate? = nil, intermediatesDER: [[UInt8]],
        at time: Int64, rememberLeaf: Bool
    ) throws(CryptoError) -> ChainVerification {
        let leafDigest = rememberLeaf && capacity > 0 ? SHA256.hash(leafDER) : nil
        if let leafDigest, let entry = lookUp(leafDigest, at: time), entry.issuerKey == nil {
            state.withLock { $0.hits += 1 }
            return ChainVerification(usedCache: true)
        }
        // An intermediate verified before: the leaf then needs only its own signature and validity checked.
        if capacity > 0 {
            for der in intermediatesDER {
                guard let entry = lookUp(SHA256.hash(der), at: time), let issuerKey = entry.issuerKey,
                      let leaf = fields ?? DERCertificate(leafDER),
                      Self.isIssued(leaf, by: entry.subject, key: issuerKey, at: time)
                else { continue }
                if let leafDigest {
                    let window = entry.window.intersection(Window(notBefore: leaf.notBefore, notAfter: leaf.notAfter))
                    insert(leafDigest, Entry(window: window, subject: Array(leaf.subject), issuerKey: nil))
                }
                state.withLock { $0.hits += 1 }
                return ChainVerification(usedCache: true)
            }
        }
        // Otherwise (and whenever the short path declines, so the reason reported never depends on what happens
        // to be cached) OpenSSL verifies the whole chain.
        let leaf: Certificate
        if let parsed { leaf = parsed } else { leaf = try Certificate(derEncoded: leafDER) }
        var untrusted: [Certificate] = []
        for der in intermediatesDER { untrusted.append(try Certificate(derEncoded: der)) }
        let chain = try Self.run(anchors, leaf: leaf, untrusted: untrusted, at: time)
        state.withLock { $0.misses += 1 }
        if capacity > 0 { remember(chain: chain, leafDigest: leafDigest) }
        return ChainVerification(usedCache: false)
    }

    /// The check a cached issuer leaves to do: the leaf names it, is valid at `time`, has no critical extension
    /// beyond those a leaf of this kind carries, and its signature verifies with the issuer's key.
    private static func isIssued(_ leaf: DERCertificate, by subject: [UInt8], key: PublicKey, at time: Int64) -> Bool {
        leaf.issuer.elementsEqual(subject) && leaf.isValid(at: time)
            && leaf.extensions.allSatisfy({ !$0.critical || understoodCriticalExtensions.contains(Array($0.oidContents)) })
            && isValidCertificateSignature(
                leaf.signature, over: leaf.tbsCertificate, algorithm: leaf.signatureAlgorithmContents, key: key)
    }

    /// Whether `signature` (DER ECDSA, a certificate's signatureValue) verifies over `tbsCertificate` under the
    /// issuer's `key`, for the signature algorithm whose object identifier's contents are `algorithm`
    /// (ecdsa-with-SHA256 or ecdsa-with-SHA384; any other is refused).
    static func isValidCertificateSignature(
        _ signature: some ContiguousBytes, over tbsCertificate: some ContiguousBytes,
        algorithm: some Sequence<UInt8>, key: PublicKey
    ) -> Bool {
        guard let digest = signatureDigests[Array(algorithm)] else { return false }
        return key.isValidSignature(signature, for: tbsCertificate, digest: digest)
    }

    /// keyUsage, basicConstraints, extKeyUsage: what OpenSSL would accept as critical on a leaf with no purpose set.
    private static let understoodCriticalExtensions: Set<[UInt8]> = [[0x55, 0x1d, 0x0f], [0x55, 0x1d, 0x13], [0x55, 0x1d, 0x25]]
    /// ecdsa-with-SHA256 and ecdsa-with-SHA384.
    static let signatureDigests: [[UInt8]: SignatureDigest] = [
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]: .sha256, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]: .sha384,
    ]

    /// Empties the cache (the counters are kept).
    public func removeAll() { state.withLock { $0.entries.removeAll() } }

    // MARK: Cache

    private struct Window: Sendable {
        var notBefore: Int64
        var notAfter: Int64
        init(notBefore: Int64, notAfter: Int64) {
            self.notBefore = notBefore
            self.notAfter = notAfter
        }
        init(_ certificate: Certificate) { self.init(notBefore: certificate.notBefore, notAfter: certificate.notAfter) }
        // As OpenSSL reads a window: valid from notBefore inclusive until notAfter exclusive.
        func contains(_ time: Int64) -> Bool { notBefore <= time && time < notAfter }
        func intersection(_ other: Window) -> Window {
            Window(notBefore: max(notBefore, other.notBefore), notAfter: min(notAfter, other.notAfter))
        }
    }

    private struct Entry: Sendable {
        let window: Window
        /// The certificate's subject Name, DER.
        let subject: [UInt8]
        /// The key that verifies what this certificate issued, parsed once; nil for remembered leaves.
        let issuerKey: PublicKey?
        var lastUse: UInt64 = 0
    }

    private struct Cache: ~Copyable {
        var entries: [[UInt8]: Entry] = [:]
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    private func lookUp(_ digest: [UInt8], at time: Int64) -> Entry? {
        state.withLock { cache in
            guard var entry = cache.entries[digest], entry.window.contains(time) else { return nil }
            cache.clock += 1
            entry.lastUse = cache.clock
            cache.entries[digest] = entry
            return entry
        }
    }

    private func insert(_ digest: [UInt8], _ entry: Entry) {
        let capacity = self.capacity
        state.withLock { cache in
            cache.clock += 1
            var entry = entry
            entry.lastUse = cache.clock
            if cache.entries[digest] == nil, cache.entries.count >= capacity,
               let oldest = cache.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                cache.entries.removeValue(forKey: oldest)
            }
            cache.entries[digest] = entry
        }
    }

    /// Caches every certificate strictly between the leaf and the anchor, each with the validity window it shares
    /// with the certificates above it.
    private func remember(chain: [Certificate], leafDigest: [UInt8]?) {
        guard chain.count >= 2 else { return }
        var window = Window(chain[chain.count - 1])
        var index = chain.count - 2
        while index >= 1 {
            let certificate = chain[index]
            window = window.intersection(Window(certificate))
            if let key = certificate.publicKey, let fields = DERCertificate(certificate.derEncoded) {
                key.prepareForSharing()
                insert(
                    SHA256.hash(certificate.derEncoded),
                    Entry(window: window, subject: Array(fields.subject), issuerKey: key))
            }
            index -= 1
        }
        if let leafDigest {
            insert(leafDigest, Entry(window: window.intersection(Window(chain[0])), subject: [], issuerKey: nil))
        }
    }

    // MARK: OpenSSL

    /// Runs `X509_verify_cert` and returns the verified chain, leaf first, anchor last.
    private static func run(
        _ store: X509Store, leaf: Certificate, untrusted: [Certificate], at time: Int64
    ) throws(CryptoError) -> [Certificate] {
        OpenSSLErrorQueue.clear()
        guard let context = X509_STORE_CTX_new(), let stack = cshims_sk_X509_new_null() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot allocate a verification context")
        }
        defer {
            X509_STORE_CTX_free(context)
            cshims_sk_X509_free(stack)
        }
        for certificate in untrusted { _ = cshims_sk_X509_push(stack, certificate.pointer) }
        guard X509_STORE_CTX_init(context, store.pointer, leaf.pointer, stack) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot initialise a verification context")
        }
        // Always pin the time: "now" is the caller's decision, so tests and production take the same path.
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(time))
        guard X509_verify_cert(context) == 1 else {
            let number = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let text = String(cString: X509_verify_cert_error_string(Int(number)))
            _ = OpenSSLErrorQueue.drain()
            throw CryptoError(Self.code(forX509Error: number), "\(text) (X509 error \(number) at depth \(depth))")
        }
        guard let verified = X509_STORE_CTX_get0_chain(context) else { return [leaf] }
        return (0..<cshims_sk_X509_num(verified)).compactMap { index in
            guard let pointer = cshims_sk_X509_value(verified, index) else { return nil }
            if pointer == leaf.pointer { return leaf }
            if let known = untrusted.first(where: { $0.pointer == pointer }) { return known }
            return Certificate(retaining: pointer)
        }
    }

    static func code(forX509Error number: Int32) -> CryptoError.Code {
        switch number {
        case X509_V_ERR_CERT_HAS_EXPIRED: .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: .certificateNotYetValid
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE: .badCertificateSignature
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_CERT_UNTRUSTED:
            .untrustedChain
        case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
            .invalidCertificateAuthority
        default: .chainRejected(number)
        }
    }
}

/// The result of a chain verification that succeeded.
public struct ChainVerification: Sendable, Equatable {
    /// True when a cached intermediate (or remembered leaf) spared the verification of the upper chain.
    public var usedCache: Bool
}

/// An `X509_STORE`, immutable once built; OpenSSL allows concurrent verifications against one store.
final class X509Store: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Kept alive as long as the store refers to them.
    private let certificates: [Certificate]

    init(trusting certificates: [Certificate]) throws(CryptoError) {
        guard let store = X509_STORE_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot allocate a certificate store")
        }
        for certificate in certificates where X509_STORE_add_cert(store, certificate.pointer) != 1 {
            X509_STORE_free(store)
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot add a trust anchor")
        }
        self.pointer = store
        self.certificates = certificates
    }

    deinit { X509_STORE_free(pointer) }
}
