import Crypto

/// An EC private key, for the simulated CAs (P-384, P-256) and device keys (P-256): Crypto's ``ECPrivateKey`` with
/// the simulator's failure policy (see `CryptoCall`).
final class ECKeyPair: Sendable {
    typealias Curve = ECPrivateKey.Curve

    let key: ECPrivateKey

    /// A fresh key on `curve`.
    convenience init(curve: Curve) {
        self.init(CryptoCall.require("generating a \(curve.rawValue) key") { () throws(CryptoError) in try ECPrivateKey.generate(curve) })
    }

    init(_ key: ECPrivateKey) {
        self.key = key
    }

    var curve: Curve { key.curve }

    /// The uncompressed point `04 || X || Y` (65 bytes for P-256, 97 for P-384).
    var publicPoint: [UInt8] { key.publicPoint }

    /// A DER ECDSA signature of `message`, hashed with SHA-256.
    func sign(_ message: [UInt8]) -> [UInt8] {
        CryptoCall.require("signing") { () throws(CryptoError) in try key.signature(message, digest: .sha256) }
    }

    /// The DER SubjectPublicKeyInfo.
    var subjectPublicKeyInfoDER: [UInt8] { key.subjectPublicKeyInfoDER }
}
