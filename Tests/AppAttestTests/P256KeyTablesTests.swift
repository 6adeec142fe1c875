@testable import Crypto
import Testing

/// `P256KeyTables` must answer exactly as OpenSSL's own verification does, for good signatures and for every way a
/// signature can be wrong, and `PublicKey` must switch to it without changing an answer.
@Suite("P-256 per-key verification tables")
struct P256KeyTablesTests {
    /// P-256's group order n.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// A fresh P-256 signer and its public key as `PublicKey`.
    static func keyPair() throws -> (signer: PrivateKey, key: PublicKey) {
        let signer = try PrivateKey.generate(.es256)
        return (signer, try PublicKey(pemEncoded: signer.publicKey.pem()))
    }

    /// `signer`'s DER signature over SHA-256(`message`).
    static func sign(_ message: [UInt8], with signer: PrivateKey) throws -> [UInt8] {
        try #require(SigningSignatureEncoding.der(fromRaw: try signer.sign(message)))
    }

    /// OpenSSL's answer and the table's, which must agree.
    static func answers(_ key: PublicKey, _ table: P256KeyTables, _ signature: [UInt8], _ message: [UInt8]) -> (Bool, Bool) {
        (key.isValidSignature(signature, for: message, digest: .sha256, table: nil),
         key.isValidSignature(signature, for: message, digest: .sha256, table: table))
    }

    @Test("agrees with OpenSSL for 16 keys × 24 messages: intact, message changed, signature changed, another key's")
    func agreesWithOpenSSL() throws {
        let others = try Self.keyPair()
        for keyIndex in 0..<16 {
            let (signer, key) = try Self.keyPair()
            let table = try #require(P256KeyTables(key.pointer))
            for index in 0..<24 {
                let message = (0..<(index * 7 + 1)).map { UInt8(truncatingIfNeeded: $0 * 31 + keyIndex) }
                let signature = try Self.sign(message, with: signer)
                #expect(Self.answers(key, table, signature, message) == (true, true), "key \(keyIndex) message \(index)")
                var changed = message
                changed[index % changed.count] ^= 0x01
                #expect(Self.answers(key, table, signature, changed) == (false, false))
                var forged = signature
                forged[forged.count - 1 - index % 30] ^= UInt8(1 << (index % 8))
                let (openSSL, tables) = Self.answers(key, table, forged, message)
                #expect(openSSL == tables && !tables, "forged byte \(forged.count - 1 - index % 30)")
                let foreign = try Self.sign(message, with: others.signer)
                #expect(Self.answers(key, table, foreign, message) == (false, false))
            }
        }
    }

    @Test("refuses r or s out of [1, n-1], r + n, s + n, bad DER; accepts n - s, as OpenSSL does")
    func malformedSignatures() throws {
        let (signer, key) = try Self.keyPair()
        let table = try #require(P256KeyTables(key.pointer))
        let message: [UInt8] = Array("the assertion's nonce".utf8)
        let raw = try signer.sign(message)
        let r = Array(raw.prefix(32)), s = Array(raw.suffix(32))
        #expect(Self.answers(key, table, ECDSASignatureBytes.signature(r: r, s: s), message) == (true, true))
        let intact = ECDSASignatureBytes.signature(r: r, s: s)
        let refused: [(String, [UInt8])] = [
            ("r = 0", ECDSASignatureBytes.signature(r: [0], s: s)),
            ("s = 0", ECDSASignatureBytes.signature(r: r, s: [0])),
            ("r = n", ECDSASignatureBytes.signature(r: Self.order, s: s)),
            ("s = n", ECDSASignatureBytes.signature(r: r, s: Self.order)),
            ("r + n", ECDSASignatureBytes.signature(r: ECDSASignatureBytes.add(r, Self.order), s: s)),
            ("s + n", ECDSASignatureBytes.signature(r: r, s: ECDSASignatureBytes.add(s, Self.order))),
            ("trailing byte", intact + [0]),
            ("empty", []),
            ("truncated", Array(intact.dropLast(3))),
            ("non-minimal r", { () -> [UInt8] in
                let value = ECDSASignatureBytes.integer(r).dropFirst(2)
                let body = [0x02, UInt8(value.count + 1), 0x00] + value + ECDSASignatureBytes.integer(s)
                return [0x30, UInt8(body.count)] + body
            }()),
            ("long-form length", [0x30, 0x81, intact[1]] + intact.dropFirst(2)),
            ("negative r", { () -> [UInt8] in
                let body = [0x02, 0x21, 0x80] + r + ECDSASignatureBytes.integer(s)
                return [0x30, UInt8(body.count)] + body
            }()),
            ("r and s swapped", ECDSASignatureBytes.signature(r: s, s: r)),
            ("a raw r‖s", raw),
        ]
        for (what, signature) in refused {
            #expect(Self.answers(key, table, signature, message) == (false, false), "\(what)")
        }
        // ECDSA cannot tell s from n - s: both verify, with OpenSSL too.
        let negated = ECDSASignatureBytes.signature(r: r, s: ECDSASignatureBytes.add(Self.order, s, subtract: true))
        #expect(Self.answers(key, table, negated, message) == (true, true))
    }

    @Test("a key verifies with OpenSSL once, then builds its table and keeps the same answers")
    func switchesOnSecondVerification() throws {
        let (signer, key) = try Self.keyPair()
        let message: [UInt8] = [1, 2, 3]
        let signature = try Self.sign(message, with: signer)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.verifiesWithTables)
        #expect(key.isValidSignature(signature, for: message))
        #expect(key.verifiesWithTables)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(signature, for: [1, 2, 4] as [UInt8]))
    }

    @Test("builds no table for an RSA key, which keeps verifying with OpenSSL")
    func otherKeys() throws {
        let rsa = try PrivateKey.generate(.rs256)
        let key = try PublicKey(pemEncoded: rsa.publicKey.pem())
        #expect(P256KeyTables(key.pointer) == nil)
        for _ in 0..<3 { #expect(!key.isValidSignature([0x30, 0x00] as [UInt8], for: [1] as [UInt8])) }
        #expect(!key.verifiesWithTables)
    }

    @Test("one key verified from many threads at once while its table is being built")
    func concurrent() async throws {
        let (signer, key) = try Self.keyPair()
        let messages = (0..<8).map { [UInt8(truncatingIfNeeded: $0), 0xAA] }
        let signatures = try messages.map { try Self.sign($0, with: signer) }
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                let message = messages[index % 8], signature = signatures[index % 8], other = signatures[(index + 1) % 8]
                group.addTask {
                    (0..<4).allSatisfy { _ in
                        key.isValidSignature(signature, for: message) && !key.isValidSignature(other, for: message)
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
        #expect(key.verifiesWithTables)
    }
}
