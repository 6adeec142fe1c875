import AppAttest
import Crypto
import Testing

@Suite("Cached trust store")
struct TrustStoreCacheTests {
    let vector = GuideVector.shared

    /// The guide vector's x5c (credential certificate, App Attestation CA 1) and its receipt's certificates
    /// (signer, Apple Application Integration CA 5 - G1, and the embedded G3 copy).
    var attestationChain: [[UInt8]] { (try? AttestationObject(vector.attestation).certificateChainDER) ?? [] }
    var receiptCertificates: [Certificate] {
        let receipt = (try? AttestationObject(vector.attestation).receipt) ?? nil
        return (try? SignedData.decodeUnverified(receipt ?? []).certificates()) ?? []
    }

    @Test("verifies in full first, then through the cached intermediate")
    func hitAfterFirstVerify() throws {
        let verifier = AttestationVerifier()
        let first = try verifier.verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        #expect(!first.usedCachedIntermediate)
        #expect(verifier.cacheStatistics == TrustStore.Statistics(hits: 0, misses: 1, cached: 1))
        let second = try verifier.verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        #expect(second.usedCachedIntermediate)
        #expect(verifier.cacheStatistics == TrustStore.Statistics(hits: 1, misses: 1, cached: 1))
    }

    @Test("caches nothing with capacity 0")
    func capacityZero() throws {
        let verifier = AttestationVerifier(cacheCapacity: 0)
        for _ in 0..<2 {
            let result = try verifier.verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
            #expect(!result.usedCachedIntermediate)
        }
        #expect(verifier.cacheStatistics == TrustStore.Statistics(hits: 0, misses: 2, cached: 0))
    }

    @Test("reports the leaf's own expiry even when its intermediate is cached")
    func cachedIntermediateExpiredLeaf() throws {
        let verifier = AttestationVerifier()
        _ = try verifier.verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        #expect(throws: AppAttestError(.chainInvalid("expired"))) {
            try verifier.verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.leafNotAfter + 1)
        }
    }

    @Test("stays bounded, evicting the least recently used certificate")
    func bounded() throws {
        let store = try TrustStore(anchorsDER: AppleRoots.appAttestationRootDER + AppleRoots.rootCAG3DER, capacity: 1)
        let leaf = try Certificate(derEncoded: attestationChain[0])
        let receipt = receiptCertificates
        try #require(receipt.count == 3)
        let signer = try #require(receipt.first { $0.subject.contains("Fraud Receipt Signing") })
        let others = receipt.filter { $0 !== signer }.map(\.derEncoded)

        try store.verify(leaf: leaf, intermediatesDER: [attestationChain[1]], at: vector.verifyAt)
        #expect(store.statistics.cached == 1)
        try store.verify(leaf: signer, intermediatesDER: others, at: vector.verifyAt)
        #expect(store.statistics.cached == 1)
        // The App Attest intermediate was evicted by the receipt's: the next attestation chain is verified in full.
        let again = try store.verify(leaf: leaf, intermediatesDER: [attestationChain[1]], at: vector.verifyAt)
        #expect(!again.usedCache)
        #expect(store.statistics == TrustStore.Statistics(hits: 0, misses: 3, cached: 1))
    }

    @Test("never answers from the cache outside a cached certificate's validity window")
    func windowRespected() throws {
        let store = try TrustStore(anchorsDER: AppleRoots.rootCAG3DER, capacity: 8)
        let receipt = receiptCertificates
        let signer = try #require(receipt.first { $0.subject.contains("Fraud Receipt Signing") })
        let others = receipt.filter { $0 !== signer }.map(\.derEncoded)
        let first = try store.verify(leaf: signer, intermediatesDER: others, at: vector.verifyAt, rememberLeaf: true)
        #expect(!first.usedCache)
        let second = try store.verify(leaf: signer, intermediatesDER: others, at: vector.verifyAt, rememberLeaf: true)
        #expect(second.usedCache)
        // The remembered signer expires: the cache must not vouch for it afterwards.
        #expect(throws: CryptoError(.certificateExpired, "")) {
            try store.verify(leaf: signer, intermediatesDER: others, at: signer.notAfter + 1, rememberLeaf: true)
        }
        #expect(throws: CryptoError(.certificateNotYetValid, "")) {
            try store.verify(leaf: signer, intermediatesDER: others, at: signer.notBefore - 1, rememberLeaf: true)
        }
    }

    @Test("is shared safely by concurrent verifications")
    func concurrent() async throws {
        let verifier = AttestationVerifier()
        let vector = self.vector
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    (try? verifier.verify(
                        attestationObject: vector.attestation, keyID: vector.keyID,
                        clientDataHash: vector.clientDataHash, appIDs: [vector.appID], environment: .production,
                        at: vector.verifyAt)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
        let statistics = try #require(verifier.cacheStatistics)
        #expect(statistics.hits + statistics.misses == 16)
        #expect(statistics.cached == 1)
    }
}

@Suite("Cached trust store with simulated leaves")
struct TrustStoreCachedLeafTests {
    @Test("every leaf under a cached intermediate has its signature verified: a leaf with a changed signature is refused")
    func cachedIntermediateVerifiesEachLeaf() throws {
        let verifier = SimulatedFixtures.verifier()
        for index in 0..<4 {
            let result = try SimulatedAttestationCase().verify(verifier: verifier)
            #expect(result.usedCachedIntermediate == (index > 0))
        }
        #expect(verifier.cacheStatistics == TrustStore.Statistics(hits: 3, misses: 1, cached: 1))
        // The leaf's last signature byte changed: the cached path declines, and OpenSSL's full verification refuses.
        let forged = SimulatedAttestationCase(options: .init {
            $0.x5c = { chain in
                var leaf = chain[0]
                leaf[leaf.count - 1] ^= 0x01
                return [leaf] + chain.dropFirst()
            }
        })
        #expect(throws: AppAttestError.self) { try forged.verify(verifier: verifier) }
        #expect(try SimulatedAttestationCase().verify(verifier: verifier).usedCachedIntermediate)
    }
}
