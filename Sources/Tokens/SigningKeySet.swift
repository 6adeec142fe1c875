import Basics
public import Crypto

/// The token signing keys and their schedule. Each key is published (in the JWKS, its tokens accepted) from its
/// `publishFrom`, signs from its `signFrom` until a later key of the tokens' algorithm takes over, stays published
/// for the longest token lifetime after that (retired), then is withdrawn. A key without timing is published since
/// forever and signs since forever, so among such keys the last one listed of the algorithm signs, and they are
/// withdrawn only once a timed successor has signed for the retention time. A key of another algorithm is
/// published but never signs: the algorithm is chosen by configuration, never by which key happens to be last (the
/// Firebase Admin SDKs refuse every ES256 token).
///
/// Everything is computed once, from the configuration alone, so the nodes of a cluster agree; at request time the
/// issuer, the verifier and the JWKS only compare the time with precomputed bounds.
public struct SigningKeySet: Sendable {
    /// A key as configured: its private key, its timing (nil: untimed), and a name for messages (its file).
    public struct Key: Sendable {
        public let privateKey: PrivateKey
        public let timing: SigningKeyTiming?
        public let name: String

        public init(_ privateKey: PrivateKey, timing: SigningKeyTiming? = nil, name: String) {
            self.privateKey = privateKey
            self.timing = timing
            self.name = name
        }
    }

    /// A key with its schedule and the parts of every token it signs that do not change: its `kid` and encoded
    /// JWS header.
    public struct Entry: Sendable {
        public let privateKey: PrivateKey
        /// Its file, or another name chosen by who built the set.
        public let name: String
        /// As configured; nil: untimed.
        public let timing: SigningKeyTiming?
        /// The RFC 7638 thumbprint of the public key.
        public let kid: String
        /// When it is in the JWKS and its tokens verify (`Int64.min` and `Int64.max` stand for no bound).
        public let published: Range<Int64>
        /// When it signs; empty if it never does, nil if it is of another algorithm than the tokens'.
        public let signing: Range<Int64>?
        /// `base64url({"alg":…,"typ":"JWT","kid":…})`, computed once.
        let encodedHeader: [UInt8]

        init(_ key: Key, published: Range<Int64>, signing: Range<Int64>?) {
            self.privateKey = key.privateKey
            self.name = key.name
            self.timing = key.timing
            self.published = published
            self.signing = signing
            let jwk = key.privateKey.publicKey.jwk
            self.kid = jwk.kid
            let header = "{\"alg\":\"\(jwk.alg)\",\"typ\":\"JWT\",\"kid\":\"\(jwk.kid)\"}"
            var encoded = [UInt8]()
            Base64.url.append(Array(header.utf8), to: &encoded)
            self.encodedHeader = encoded
        }

        /// Where the key stands at `time` (Unix seconds).
        public func state(at time: Int64) -> SigningKeyState {
            if time < published.lowerBound { return .unpublished }
            if time >= published.upperBound { return .withdrawn }
            guard let signing else { return .publishedOnly }
            if signing.contains(time) { return .current }
            return time < signing.lowerBound ? .next : .retired
        }
    }

    /// Every key, in the order configured.
    public let entries: [Entry]
    /// The tokens' algorithm: only keys of it sign.
    public let algorithm: SigningAlgorithm
    /// The rules the schedule was checked and computed with.
    public let rules: SigningKeyRotationRules
    /// The times at which some key changes state, ascending.
    public let boundaries: [Int64]
    /// When each signer starts signing, ascending, and its index in `entries`: the signer at a time is the last one
    /// started by then.
    private let signerStarts: [Int64]
    private let signerIndices: [Int]

    /// Untimed keys, oldest first: the last one of `algorithm` signs, and every one stays published.
    public init(keys: [PrivateKey], signingWith algorithm: SigningAlgorithm) throws(SigningKeySetError) {
        try self.init(
            keys: keys.enumerated().map { Key($1, name: "key \($0)") }, signingWith: algorithm, rules: .conservative,
            checkedAt: 0)
    }

    /// A schedule of `keys` (in the order configured), signing with `algorithm`.
    ///
    /// Refuses an empty list, the same key twice, no key of `algorithm`, a timed key published for less than
    /// `rules.minimumPublicationSeconds` before it signs, two timed keys of `algorithm` starting to sign at the same
    /// time, and a schedule in which no key signs at `now` (Unix seconds; from then on some key always signs).
    public init(
        keys: [Key], signingWith algorithm: SigningAlgorithm, rules: SigningKeyRotationRules, checkedAt now: Int64
    ) throws(SigningKeySetError) {
        guard !keys.isEmpty else { throw .empty }
        var names: [String: String] = [:]
        for key in keys {
            let kid = key.privateKey.publicKey.jwk.kid
            if let first = names[kid] {
                throw SigningKeySetError.duplicateKey.with(detail: "\(first) and \(key.name) hold the same key (kid \(kid))")
            }
            names[kid] = key.name
        }
        guard keys.contains(where: { $0.privateKey.algorithm == algorithm }) else {
            throw SigningKeySetError.noKeyForAlgorithm.with(
                detail: "tokens are signed with \(algorithm.jwsName), and no key of it is listed")
        }
        for key in keys {
            guard let timing = key.timing else { continue }
            let lead = timing.signFrom - timing.publishFrom
            guard lead >= rules.minimumPublicationSeconds else {
                throw SigningKeySetError.publishedTooBriefly.with(detail: """
                    \(key.name): signFrom \(RFC3339.format(unixSeconds: timing.signFrom)) is \(Self.duration(lead)) \
                    after publishFrom \(RFC3339.format(unixSeconds: timing.publishFrom)); it must be at least \
                    \(Self.duration(rules.minimumPublicationSeconds)) after it, so that every verifier that caches the \
                    JWKS (the Firebase Admin SDKs for Node.js and Go keep it 6 hours) has the key before its first token
                    """)
            }
        }

        // The signers in the order they take over: untimed keys first (since forever, in list order), then by signFrom.
        let signers = keys.indices
            .filter { keys[$0].privateKey.algorithm == algorithm }
            .sorted { (keys[$0].timing?.signFrom ?? .min, $0) < (keys[$1].timing?.signFrom ?? .min, $1) }
        for (earlier, later) in zip(signers, signers.dropFirst()) {
            if let start = keys[later].timing?.signFrom, keys[earlier].timing?.signFrom == start {
                throw SigningKeySetError.sameSignFrom.with(detail: """
                    \(keys[earlier].name) and \(keys[later].name) both start signing at \
                    \(RFC3339.format(unixSeconds: start)): give each its own signFrom
                    """)
            }
        }
        var published = keys.map { ($0.timing?.publishFrom ?? .min)..<Int64.max }
        var signing = [Range<Int64>?](repeating: nil, count: keys.count)
        for (position, index) in signers.enumerated() {
            let start = keys[index].timing?.signFrom ?? .min
            let end = position + 1 < signers.count ? keys[signers[position + 1]].timing?.signFrom ?? .min : .max
            signing[index] = start..<end
            // It stopped signing by the first timed successor's signFrom at the latest (an untimed successor took
            // over at some unknown time before): its last token has expired one retention later.
            if let successor = signers[(position + 1)...].lazy.compactMap({ keys[$0].timing?.signFrom }).first {
                let (until, overflow) = successor.addingReportingOverflow(rules.retentionSeconds)
                published[index] = published[index].lowerBound..<(overflow ? .max : max(until, published[index].lowerBound))
            }
        }
        let entries = keys.indices.map { Entry(keys[$0], published: published[$0], signing: signing[$0]) }
        self.entries = entries
        self.algorithm = algorithm
        self.rules = rules
        self.signerStarts = signers.map { entries[$0].signing!.lowerBound }
        self.signerIndices = signers
        self.boundaries = Array(Set(entries.flatMap { entry in
            [entry.published.lowerBound, entry.published.upperBound, entry.signing?.lowerBound, entry.signing?.upperBound]
                .compactMap { $0 }
                .filter { $0 != .min && $0 != .max }
        })).sorted()

        guard signer(at: now) != nil else {
            let first = signers.compactMap { keys[$0].timing?.signFrom }.min() ?? now
            throw SigningKeySetError.nothingSigns.with(detail: """
                at \(RFC3339.format(unixSeconds: now)) no \(algorithm.jwsName) key signs yet (the earliest signFrom is \
                \(RFC3339.format(unixSeconds: first))): list the key that signs now as a plain path before it, or, \
                for a new deployment, list its first key as a plain path
                """)
        }
    }

    /// The key that signs at `time` (Unix seconds), if any: the last one of the tokens' algorithm to start by then.
    /// A binary search over a few integers: no allocation, no lock.
    public func signer(at time: Int64) -> Entry? {
        var low = 0
        var high = signerStarts.count
        while low < high {
            let middle = (low + high) / 2
            if signerStarts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : entries[signerIndices[low - 1]]
    }

    /// The keys published at `time` (in the JWKS, their tokens accepted), in the order configured.
    public func published(at time: Int64) -> [Entry] {
        entries.filter { $0.published.contains(time) }
    }

    /// The first time after `time` at which some key changes state; nil when none ever does again.
    public func nextBoundary(after time: Int64) -> Int64? {
        boundaries.first { $0 > time }
    }

    /// The key whose `kid` this is, if it is in the set (whatever its state).
    public func entry(kid: String) -> Entry? {
        entries.first { $0.kid == kid }
    }

    /// `seconds` as `6h 2m`, `45m`, `30s`, for messages.
    public static func duration(_ seconds: Int64) -> String {
        guard seconds >= 0 else { return "-" + duration(-seconds) }
        let parts = [(seconds / 86_400, "d"), (seconds / 3_600 % 24, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s")]
            .filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }
        return parts.isEmpty ? "0s" : parts.joined(separator: " ")
    }
}
