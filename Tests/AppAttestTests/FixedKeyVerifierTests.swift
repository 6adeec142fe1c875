import AppAttest
import AppAttestSimulator
import Crypto
import Testing

/// `FixedKeyVerifier` must answer exactly as OpenSSL's own verification does, for real and simulated certificates
/// and for every way a signature can be wrong.
@Suite("Fixed-key ECDSA verification (precomputed tables)")
struct FixedKeyVerifierTests {
    /// P-384's group order n.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC7, 0x63, 0x4D, 0x81, 0xF4, 0x37, 0x2D, 0xDF,
        0x58, 0x1A, 0x0D, 0xB2, 0x48, 0xB0, 0xA7, 0x7A, 0xEC, 0xEC, 0x19, 0x6A, 0xCC, 0xC5, 0x29, 0x73,
    ]

    /// The leaf and the intermediate that signed it: Apple's real App Attestation CA 1 and the guide's leaf.
    static func appleLeaf() throws -> (leaf: DERCertificate, issuer: PublicKey) {
        let chain = try AttestationObject(GuideVector.shared.attestation).certificateChainDER
        let leaf = try #require(DERCertificate(chain[0]))
        let issuer = try #require(try Certificate(derEncoded: chain[1]).publicKey)
        return (leaf, issuer)
    }

    /// `count` simulated credential certificates, each signed by the simulated App Attestation CA's P-384 key.
    static func simulatedLeaves(_ count: Int) throws -> (leaves: [DERCertificate], issuer: PublicKey) {
        let device = SimulatedFixtures.device()
        var leaves: [DERCertificate] = []
        for index in 0..<count {
            let object = device.attestation(device.generateKey(), clientDataHash: SHA256.hash([UInt8(index & 0xFF)])).object
            leaves.append(try #require(DERCertificate(try AttestationObject(object).certificateChainDER[0])))
        }
        let issuer = try #require(try Certificate(derEncoded: SimulatedFixtures.ca.intermediateDER).publicKey)
        return (leaves, issuer)
    }

    /// The digest a leaf's signature algorithm names (the simulated CA signs with SHA-256, Apple's with SHA-384).
    static func digest(of leaf: DERCertificate) -> SignatureDigest {
        leaf.signatureAlgorithm == "1.2.840.10045.4.3.3" ? .sha384 : .sha256
    }

    @Test("verifies Apple's real leaf with Apple's real App Attestation CA 1 key, as OpenSSL does")
    func appleCertificate() throws {
        let (leaf, issuer) = try Self.appleLeaf()
        let fixed = try #require(FixedKeyVerifier(issuer))
        let digest = Self.digest(of: leaf), otherDigest: SignatureDigest = digest == .sha256 ? .sha384 : .sha256
        #expect(issuer.isValidSignature(leaf.signature, for: leaf.tbsCertificate, digest: digest))
        #expect(fixed.isValidSignature(leaf.signature, for: leaf.tbsCertificate, digest: digest))
        var tampered = Array(leaf.tbsCertificate)
        tampered[tampered.count / 2] ^= 0x01
        #expect(!fixed.isValidSignature(leaf.signature, for: tampered, digest: digest))
        #expect(!fixed.isValidSignature(leaf.signature, for: leaf.tbsCertificate, digest: otherDigest))
    }

    @Test("agrees with OpenSSL on 48 simulated leaves, each one intact, with its message changed, and with its signature changed")
    func agreesWithOpenSSL() throws {
        let (leaves, issuer) = try Self.simulatedLeaves(48)
        let fixed = try #require(FixedKeyVerifier(issuer))
        for (index, leaf) in leaves.enumerated() {
            let tbs = Array(leaf.tbsCertificate), signature = Array(leaf.signature), digest = Self.digest(of: leaf)
            let intact = fixed.isValidSignature(signature, for: tbs, digest: digest)
            #expect(intact, "leaf \(index)")
            var message = tbs
            message[index % message.count] ^= 0x80
            #expect(!fixed.isValidSignature(signature, for: message, digest: digest))
            #expect(!issuer.isValidSignature(signature, for: message, digest: digest))
            var forged = signature
            forged[forged.count - 1 - index % 40] ^= 0x04
            #expect(fixed.isValidSignature(forged, for: tbs, digest: digest)
                    == issuer.isValidSignature(forged, for: tbs, digest: digest))
            #expect(!fixed.isValidSignature(forged, for: tbs, digest: digest))
            // Another leaf's signature over this leaf's message.
            let other = Array(leaves[(index + 1) % leaves.count].signature)
            #expect(!fixed.isValidSignature(other, for: tbs, digest: digest))
        }
    }

    @Test("refuses r or s out of [1, n-1], s + n, trailing bytes and non-minimal DER; accepts n - s as OpenSSL does")
    func malformedSignatures() throws {
        let (leaves, issuer) = try Self.simulatedLeaves(1)
        let leaf = leaves[0], tbs = Array(leaves[0].tbsCertificate), digest = Self.digest(of: leaves[0])
        let fixed = try #require(FixedKeyVerifier(issuer))
        let (r, s) = try ECDSASignatureBytes.parts(leaf.signature)
        #expect(fixed.isValidSignature(ECDSASignatureBytes.signature(r: r, s: s), for: tbs, digest: digest))
        let refused: [(String, [UInt8])] = [
            ("r = 0", ECDSASignatureBytes.signature(r: [0], s: s)),
            ("s = 0", ECDSASignatureBytes.signature(r: r, s: [0])),
            ("s = n", ECDSASignatureBytes.signature(r: r, s: Self.order)),
            ("r = n", ECDSASignatureBytes.signature(r: Self.order, s: s)),
            ("s + n", ECDSASignatureBytes.signature(r: r, s: ECDSASignatureBytes.add(s, Self.order))),
            ("r + n", ECDSASignatureBytes.signature(r: ECDSASignatureBytes.add(r, Self.order), s: s)),
            ("trailing byte", Array(leaf.signature) + [0]),
            ("empty", []),
            ("truncated", Array(leaf.signature.dropLast(3))),
            ("non-minimal r", { () -> [UInt8] in
                let body = [0x02, UInt8(r.count + 1), 0x00] + r + ECDSASignatureBytes.integer(s)
                return [0x30, UInt8(body.count)] + body
            }()),
        ]
        for (what, signature) in refused {
            #expect(!fixed.isValidSignature(signature, for: tbs, digest: digest), "\(what)")
            #expect(!issuer.isValidSignature(signature, for: tbs, digest: digest), "OpenSSL: \(what)")
        }
        // ECDSA cannot tell s from n - s: both verify, with OpenSSL too.
        let negated = ECDSASignatureBytes.signature(r: r, s: ECDSASignatureBytes.add(Self.order, s, subtract: true))
        #expect(issuer.isValidSignature(negated, for: tbs, digest: digest))
        #expect(fixed.isValidSignature(negated, for: tbs, digest: digest))
    }

    @Test("builds no tables for keys other than P-384")
    func otherCurves() throws {
        let chain = try AttestationObject(GuideVector.shared.attestation).certificateChainDER
        let p256 = try #require(try Certificate(derEncoded: chain[0]).publicKey)
        #expect(p256.curveName == "prime256v1")
        #expect(FixedKeyVerifier(p256) == nil)
    }

    @Test("verifies from several threads at once with one set of tables")
    func concurrent() async throws {
        let (leaves, issuer) = try Self.simulatedLeaves(8)
        let fixed = try #require(FixedKeyVerifier(issuer))
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                let leaf = leaves[index % leaves.count]
                let tbs = Array(leaf.tbsCertificate), signature = Array(leaf.signature)
                group.addTask {
                    (0..<4).allSatisfy { _ in fixed.isValidSignature(signature, for: tbs, digest: Self.digest(of: leaf)) }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }
}

@Suite("Cached trust store with precomputed issuer tables")
struct IssuerTablesTests {
    @Test("past the threshold where the intermediate's tables take over, good leaves still verify and a leaf with a changed signature is refused")
    func tablesInTheTrustStore() throws {
        let verifier = SimulatedFixtures.verifier()
        // 24 leaves: the tables are built on the 16th use of the cached intermediate.
        for index in 0..<24 {
            let result = try SimulatedAttestationCase().verify(verifier: verifier)
            #expect(result.usedCachedIntermediate == (index > 0))
        }
        #expect(verifier.cacheStatistics == TrustStore.Statistics(hits: 23, misses: 1, cached: 1))
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
