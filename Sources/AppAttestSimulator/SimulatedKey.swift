import Basics
import Crypto
import Synchronization

/// A P-256 key a simulated device generated, as `DCAppAttestService.generateKey` would: its private half stays
/// here; the app sends `keyID`, and the server keeps `publicKey` after attestation.
///
/// Each key has its own assertion counter, advanced by `SimulatedDevice.assert`. Safe to share between threads.
public final class SimulatedKey: Sendable {
    /// SHA-256 of the uncompressed public point: the 32 bytes the app sends (base64) as its key identifier.
    public let keyID: [UInt8]
    /// The uncompressed public point `04 || X || Y` (65 bytes).
    public let publicKey: [UInt8]
    /// `keyID` in standard base64 (44 characters), as the app sends it.
    public var keyIDBase64: String { Base64.standard.encode(keyID) }
    /// The DER SubjectPublicKeyInfo of `publicKey`, for callers that store keys as PEM or SPKI.
    public var subjectPublicKeyInfoDER: [UInt8] { pair.subjectPublicKeyInfoDER }
    /// `publicKey` as a PEM `PUBLIC KEY` block, for tools that read key files.
    public var publicKeyPEM: String {
        let body = Base64.standard.encode(subjectPublicKeyInfoDER)
        let lines = stride(from: 0, to: body.count, by: 64).map { offset in
            let start = body.index(body.startIndex, offsetBy: offset)
            return String(body[start..<(body.index(start, offsetBy: 64, limitedBy: body.endIndex) ?? body.endIndex)])
        }
        return "-----BEGIN PUBLIC KEY-----\n" + lines.joined(separator: "\n") + "\n-----END PUBLIC KEY-----\n"
    }
    /// The counter of the last assertion made with this key (0 until the first assertion).
    public var counter: UInt32 { storedCounter.withLock { $0 } }

    let pair: ECKeyPair
    private let storedCounter: Mutex<UInt32>

    convenience init() {
        self.init(pair: ECKeyPair(curve: .p256), counter: 0)
    }

    /// A key with `pair` (P-256) whose last assertion used `counter`: a new one, or one read back from a file.
    init(pair: ECKeyPair, counter: UInt32) {
        self.pair = pair
        publicKey = pair.publicPoint
        keyID = SHA256.hash(publicKey)
        storedCounter = Mutex(counter)
    }

    /// The key's COSE_Key encoding, exactly as Apple writes it in authenticator data:
    /// `a5 01 02 03 26 20 01 21 58 20 <X> 22 58 20 <Y>`.
    public var coseKey: [UInt8] {
        Self.coseKey(point: publicKey)
    }

    /// The COSE_Key encoding of any 65-byte uncompressed P-256 point.
    public static func coseKey(point: [UInt8]) -> [UInt8] {
        precondition(point.count == 65 && point.first == 0x04, "an uncompressed P-256 point has 65 bytes")
        return CBORValue.map([
            (.unsigned(1), .unsigned(2)),
            (.unsigned(3), .negative(6)),
            (.negative(0), .unsigned(1)),
            (.negative(1), .bytes(Array(point[1..<33]))),
            (.negative(2), .bytes(Array(point[33..<65]))),
        ]).encoded
    }

    /// Sets the counter to `value` (if given) or advances it by one, and returns the new value.
    func nextCounter(_ value: UInt32?) -> UInt32 {
        storedCounter.withLock { counter in
            counter = value ?? counter &+ 1
            return counter
        }
    }
}
