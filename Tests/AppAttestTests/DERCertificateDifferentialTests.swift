import AppAttest
import AppAttestSimulator
@_spi(Testing) import Crypto
import Foundation
import Testing

/// The short certificate path must never read a certificate OpenSSL would not: every input `DERCertificate` accepts,
/// OpenSSL's `d2i_X509` (through `Certificate`) accepts too, and the two read the same fields from it.
@Suite("Strict DER certificates against OpenSSL")
struct DERCertificateDifferentialTests {
    /// Every certificate found in the checked-in fuzz seeds (x5c, anchors, receipts' CMS certificates): any
    /// `30 81/82 …` run that starts with a SEQUENCE and is followed by another, cut at its length.
    static func corpusCertificates() throws -> [[UInt8]] {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")
        var found: [[UInt8]] = []
        let files = FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.sorted { $0.path < $1.path } ?? []
        for file in files where !file.hasDirectoryPath {
            let bytes = [UInt8](try Data(contentsOf: file))
            for start in bytes.indices where bytes[start] == 0x30 && start + 8 < bytes.count {
                let width = bytes[start + 1] == 0x82 ? 2 : bytes[start + 1] == 0x81 ? 1 : 0
                guard width > 0, bytes[start + 2 + width] == 0x30 else { continue }
                let length = bytes[start + 2..<start + 2 + width].reduce(0) { $0 << 8 | Int($1) }
                let end = start + 2 + width + length
                guard end <= bytes.count, length > 64 else { continue }
                found.append(Array(bytes[start..<end]))
            }
        }
        return found
    }

    /// Real certificates: the guide vector's chain and receipt certificates, Apple's roots.
    static func appleCertificates() throws -> [[UInt8]] {
        let object = try AttestationObject(GuideVector.shared.attestation)
        let receipt = try object.receipt.map { try SignedData.decodeUnverified($0).certificatesDER } ?? []
        return object.certificateChainDER + receipt + AppleRoots.appAttestationRootDER + AppleRoots.rootCAG3DER
    }

    /// Simulated chains: the fixtures' CAs, a fresh CA, and six devices' attestations with their receipts.
    static func simulatedCertificates() throws -> [[UInt8]] {
        let fresh = SimulatedAppleCA(name: "Differential")
        var found = [SimulatedFixtures.ca, SimulatedFixtures.untrustedCA, fresh].flatMap { [$0.rootDER, $0.intermediateDER] }
        found += [SimulatedFixtures.receiptCA, SimulatedFixtures.untrustedReceiptCA].flatMap {
            [$0.rootDER, $0.intermediateDER, $0.signingCertificateDER]
        }
        let device = SimulatedFixtures.device()
        for index in 0..<6 {
            let attestation = device.attestation(device.generateKey(), clientDataHash: SHA256.hash([UInt8(index)]))
            found += attestation.certificateChain
            if let receipt = attestation.receipt { found += try SignedData.decodeUnverified(receipt).certificatesDER }
        }
        return found
    }

    /// Changes to `der`, one byte each: every tag and length octet with each bit flipped, one up and one down, and
    /// set to each of the values that mean something in a header (0, 0x7f, 0x80-0x84, 0xff); every time character
    /// set to each printable ASCII character; each of those octets deleted, a zero inserted before it; every
    /// truncation; a byte or two after the end.
    static func mutations(of der: [UInt8]) -> [[UInt8]] {
        var found: [[UInt8]] = []
        func change(_ offset: Int, to values: some Sequence<UInt8>) {
            for value in Set(values) where value != der[offset] {
                var changed = der
                changed[offset] = value
                found.append(changed)
            }
            var deleted = der
            deleted.remove(at: offset)
            var inserted = der
            inserted.insert(0x00, at: offset)
            found += [deleted, inserted]
        }
        let offsets = DERTree(der).structuralOffsets
        for offset in offsets.headers {
            let original = der[offset]
            change(offset, to: (0..<8).map { original ^ (1 << $0) } + [original &+ 1, original &- 1]
                + [0x00, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0xff])
        }
        for offset in offsets.times { change(offset, to: 0x20...0x7e) }
        found += (0..<der.count).map { Array(der.prefix($0)) }
        found += [der + [0x00], der + [0x00, 0x00]]
        return found
    }

    @Test("whatever the short path reads OpenSSL reads, and they agree on its fields: the fuzz seeds, simulated chains, and every one-byte change to real and simulated leaves")
    func differential() throws {
        let corpus = try Self.corpusCertificates(), apple = try Self.appleCertificates()
        let simulated = try Self.simulatedCertificates()
        let mutated = Self.mutations(of: apple[0]) + Self.mutations(of: simulated[simulated.count - 2])
        var seen = Set<[UInt8]>()
        let inputs = (apple + simulated + corpus + mutated).filter { seen.insert($0).inserted }

        var shortAccepted = 0, openSSLAccepted = 0, onlyShort: [[UInt8]] = []
        for der in inputs {
            let short = try? DERCertificate(parsing: der), openSSL = try? Certificate(derEncoded: der)
            if openSSL != nil { openSSLAccepted += 1 }
            guard let short else { continue }
            shortAccepted += 1
            guard let openSSL else {
                onlyShort.append(der)
                continue
            }
            let fields = short.disagreements(with: openSSL)
            #expect(fields.isEmpty, "read differently (\(fields)): \(Hex.string(der))")
        }
        #expect(onlyShort.isEmpty, "read by the short path only: \(onlyShort.prefix(3).map(Hex.string))")
        // Every real and simulated certificate is read by both (some fuzz seeds are malformed on purpose).
        for der in apple + simulated {
            #expect(throws: Never.self, "\(Hex.string(der))") { try DERCertificate(parsing: der) }
        }
        print("""
            DER differential: \(inputs.count) inputs (\(corpus.count) from the fuzz seeds, \(apple.count) Apple, \
            \(simulated.count) simulated, \(mutated.count) changed); the short path read \(shortAccepted), OpenSSL \
            \(openSSLAccepted)
            """)
    }
}
