import Foundation
import Testing
@testable import Crypto

/// Project Wycheproof's signature vectors (`../shared/vectors/wycheproof`, whose README maps each file to the code
/// path it covers), run through the functions attestd's own verifications call: every `valid` vector accepted,
/// every `invalid` one refused; an `acceptable` one may go either way.
@Suite("Wycheproof signature vectors")
struct WycheproofTests {
    @Test("App Attest assertions: P-256, DER signatures, SHA-256 (the key cache AssertionVerifier verifies through)")
    func assertionSignatures() throws {
        let file = try WycheproofFile("ecdsa_secp256r1_sha256_test.json")
        let keys = PublicKeyCache(capacity: 64)
        let tally = try file.run { group, test in
            try keys.isValidSignature(test.signature, for: test.message, p256UncompressedPoint: group.uncompressedPoint())
        }
        tally.expectAgreement(file)
    }

    @Test("receipts: the CMS signer's signature, on the fast path and through SignedData.verifyingSignature")
    func receiptSigner() throws {
        let file = try WycheproofFile("ecdsa_secp256r1_sha256_test.json")
        // The signer check of the fast path alone, on the message shape it reads itself.
        let fast = try file.run { group, test in
            let message = try #require(CMSMessage(CMSFixture.signedData(group.publicKeyDER, test)))
            return message.hasValidSignature()
        }
        fast.expectAgreement(file, path: "CMSMessage")
        // The whole receipt signature check: the fast path, and OpenSSL's CMS_verify wherever it declines.
        let whole = try file.run { group, test in
            (try? SignedData.verifyingSignature(CMSFixture.signedData(group.publicKeyDER, test))) != nil
        }
        whole.expectAgreement(file, path: "SignedData")
    }

    @Test("the App Attest leaf under a cached CA key: P-384, ecdsa-with-SHA256 (the trust store's leaf check)")
    func leafUnderCachedIntermediate() throws {
        try certificateSignatures("ecdsa_secp384r1_sha256_test.json", algorithm: ObjectIdentifiers.ecdsaWithSHA256)
    }

    @Test("a certificate under a P-384 key with ecdsa-with-SHA384, as the intermediate is under the root")
    func certificateWithSHA384() throws {
        try certificateSignatures("ecdsa_secp384r1_sha384_test.json", algorithm: ObjectIdentifiers.ecdsaWithSHA384)
    }

    @Test("ES256 JWS signatures (r‖s) through JWSPublicKey")
    func es256() throws {
        try jwsSignatures("ecdsa_secp256r1_sha256_p1363_test.json")
    }

    @Test("RS256 JWS signatures through JWSPublicKey")
    func rs256() throws {
        try jwsSignatures("rsa_signature_2048_sha256_test.json")
    }

    /// Certificate signatures as `TrustStore` checks a leaf under a cached issuer: the issuer's key parsed once and
    /// prepared for sharing, as its cache entry holds it.
    private func certificateSignatures(_ name: String, algorithm: [UInt8]) throws {
        let file = try WycheproofFile(name)
        var keys: [[UInt8]: PublicKey] = [:]
        let tally = try file.run { group, test in
            let key: PublicKey
            if let known = keys[group.publicKeyDER] {
                key = known
            } else {
                key = try PublicKey(subjectPublicKeyInfoDER: group.publicKeyDER)
                key.prepareForSharing()
                keys[group.publicKeyDER] = key
            }
            return TrustStore.isValidCertificateSignature(test.signature, over: test.message, algorithm: algorithm, key: key)
        }
        tally.expectAgreement(file)
    }

    /// JWS signatures as the token verifiers check them: the key read from its PEM, as configured keys are.
    private func jwsSignatures(_ name: String) throws {
        let file = try WycheproofFile(name)
        var keys: [String: JWSPublicKey] = [:]
        let tally = try file.run { group, test in
            let key: JWSPublicKey
            if let known = keys[group.publicKeyPEM] {
                key = known
            } else {
                key = try JWSPublicKey(pem: group.publicKeyPEM)
                keys[group.publicKeyPEM] = key
            }
            return key.isValidSignature(test.signature, for: test.message)
        }
        tally.expectAgreement(file)
    }
}

/// The signature algorithms' object identifiers (contents only), as certificates name them.
private enum ObjectIdentifiers {
    static let ecdsaWithSHA256: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]
    static let ecdsaWithSHA384: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]
}

/// One Wycheproof file: groups of tests sharing a public key.
struct WycheproofFile {
    struct Group {
        var publicKeyDER: [UInt8]
        var publicKeyPEM: String
        /// `publicKey.uncompressed` (EC groups only).
        var uncompressed: String?
        var tests: [Test]

        func uncompressedPoint() throws -> [UInt8] {
            try #require(uncompressed.flatMap(Hex.decode), "an EC group carries its uncompressed point")
        }
    }

    struct Test {
        var id: Int
        var comment: String
        var message: [UInt8]
        var signature: [UInt8]
        var result: String
    }

    let name: String
    let groups: [Group]
    let numberOfTests: Int

    init(_ name: String) throws {
        self.name = name
        let url = try Self.directory().appendingPathComponent(name)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        numberOfTests = try #require(json["numberOfTests"] as? Int)
        var groups: [Group] = []
        for group in try #require(json["testGroups"] as? [[String: Any]]) {
            var tests: [Test] = []
            for test in try #require(group["tests"] as? [[String: Any]]) {
                tests.append(Test(
                    id: try #require(test["tcId"] as? Int), comment: test["comment"] as? String ?? "",
                    message: try #require((test["msg"] as? String).flatMap(Hex.decode)),
                    signature: try #require((test["sig"] as? String).flatMap(Hex.decode)),
                    result: try #require(test["result"] as? String)))
            }
            groups.append(Group(
                publicKeyDER: try #require((group["publicKeyDer"] as? String).flatMap(Hex.decode)),
                publicKeyPEM: try #require(group["publicKeyPem"] as? String),
                uncompressed: (group["publicKey"] as? [String: Any])?["uncompressed"] as? String, tests: tests))
        }
        self.groups = groups
    }

    /// Runs `verify` on every test; a thrown error counts as a refusal (a key the verifier would not even read).
    func run(_ verify: (Group, Test) throws -> Bool) throws -> WycheproofTally {
        var tally = WycheproofTally()
        for group in groups {
            for test in group.tests {
                let accepted = (try? verify(group, test)) ?? false
                tally.count(test, accepted: accepted)
            }
        }
        return tally
    }

    /// `../shared/vectors/wycheproof` beside the package (or beside any directory above it), or the directory
    /// `WYCHEPROOF_DIR` names.
    static func directory() throws -> URL {
        let files = FileManager.default
        if let named = ProcessInfo.processInfo.environment["WYCHEPROOF_DIR"] { return URL(fileURLWithPath: named) }
        // Tests/CryptoTests/WycheproofTests.swift: three levels up is the package.
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.deletingLastPathComponent().appendingPathComponent("shared/vectors/wycheproof")
            if files.fileExists(atPath: candidate.appendingPathComponent("README.md").path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw WycheproofMissing()
    }

    struct WycheproofMissing: Error, CustomStringConvertible {
        var description: String { "no shared/vectors/wycheproof beside the package or above it (or set WYCHEPROOF_DIR)" }
    }
}

/// What a verifier answered over one file.
struct WycheproofTally {
    var valid = 0, validAccepted = 0
    var invalid = 0, invalidRefused = 0
    var acceptable = 0, acceptableAccepted = 0
    /// The tests answered against their expected result.
    var disagreements: [String] = []

    mutating func count(_ test: WycheproofFile.Test, accepted: Bool) {
        switch test.result {
        case "valid":
            valid += 1
            if accepted { validAccepted += 1 } else { disagreements.append("tcId \(test.id) (valid, refused): \(test.comment)") }
        case "invalid":
            invalid += 1
            if !accepted { invalidRefused += 1 } else { disagreements.append("tcId \(test.id) (invalid, accepted): \(test.comment)") }
        default:
            acceptable += 1
            if accepted { acceptableAccepted += 1 }
        }
    }

    /// Every vector of `file` was run, and every valid and invalid one answered as expected; prints the counts.
    func expectAgreement(_ file: WycheproofFile, path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let label = path.map { "\(file.name) via \($0)" } ?? file.name
        print("wycheproof \(label): \(validAccepted)/\(valid) valid accepted, \(invalidRefused)/\(invalid) invalid "
              + "refused, \(acceptable) acceptable (\(acceptableAccepted) accepted)")
        #expect(valid + invalid + acceptable == file.numberOfTests, "\(label): every vector runs", sourceLocation: sourceLocation)
        #expect(disagreements.isEmpty, "\(label): \(disagreements.joined(separator: "; "))", sourceLocation: sourceLocation)
    }
}

/// A CMS SignedData (RFC 5652) shaped as Apple's receipts are (one signer named by issuer and serial number,
/// SHA-256, ecdsa-with-SHA256, no signed attributes), carrying a Wycheproof message as its content and the test's
/// signature as the signer's, under a certificate holding the group's key (its own signature is never checked).
enum CMSFixture {
    static func signedData(_ publicKeyDER: [UInt8], _ test: WycheproofFile.Test) -> [UInt8] {
        let sha256 = sequence(oid([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]))
        let ecdsaWithSHA256 = sequence(oid([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]))
        let name = sequence(tlv(0x31, sequence(oid([0x55, 0x04, 0x03]) + tlv(0x0c, Array("Wycheproof".utf8)))))
        let serial = tlv(0x02, [0x01])
        let validity = sequence(tlv(0x17, Array("200101000000Z".utf8)) + tlv(0x17, Array("400101000000Z".utf8)))
        let tbs = sequence(tlv(0xa0, tlv(0x02, [0x02])) + serial + ecdsaWithSHA256 + name + validity + name + publicKeyDER)
        // Any signature of the right shape: CMS signature checks leave the signer's chain to the caller.
        let certificate = sequence(tbs + ecdsaWithSHA256 + tlv(0x03, [0x00] + sequence(tlv(0x02, [0x01]) + tlv(0x02, [0x01]))))
        let data = oid([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01])
        let signerInfo = sequence(
            tlv(0x02, [0x01]) + sequence(name + serial) + sha256 + ecdsaWithSHA256 + tlv(0x04, test.signature))
        let signedData = sequence(
            tlv(0x02, [0x01]) + tlv(0x31, sha256) + sequence(data + tlv(0xa0, tlv(0x04, test.message)))
                + tlv(0xa0, certificate) + tlv(0x31, signerInfo))
        return sequence(oid([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]) + tlv(0xa0, signedData))
    }

    private static func sequence(_ contents: [UInt8]) -> [UInt8] { tlv(0x30, contents) }
    private static func oid(_ contents: [UInt8]) -> [UInt8] { tlv(0x06, contents) }

    /// A DER element: tag, minimal definite length, contents.
    private static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        var count = contents.count
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            while count > 0 {
                length.insert(UInt8(count & 0xff), at: 0)
                count >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + contents
    }
}
