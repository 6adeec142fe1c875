// fuzz-p256-key: differential. A P-256 key that has verified before verifies with its own table of multiples
// (`PublicKey`, through `P256KeyTables`: attestd's arithmetic on OpenSSL's P-256 assembly); a fresh key verifies
// through OpenSSL's `EVP_PKEY_verify`. The two must answer alike for any message and any signature bytes, and never
// crash or leak. An input carries the key and what to check:
//
//   P-256 point (65, uncompressed) | digest (1: even SHA-256, odd SHA-384) | message length (2, big-endian, mod 2048) |
//   message | signature (the rest)
//
// The seeds (Fuzz/make-corpus.py) are signatures by OpenSSL's command line over SHA-256 and SHA-384, and one with the
// other digest named (which must fail).
import Crypto
import FuzzSupport

/// Keys that have verified twice, so that they verify with their tables (a few at most).
nonisolated(unsafe) var known: [[UInt8]: PublicKey] = [:]

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let point = input.take(65)
    let digest: SignatureDigest = input.byte() % 2 == 0 ? .sha256 : .sha384
    let message = input.take(input.length16() % 2048)
    let signature = input.rest()

    guard let fresh = try? PublicKey(p256UncompressedPoint: point) else { return }
    let tabled: PublicKey
    if let key = known[point] {
        tabled = key
    } else {
        guard let key = try? PublicKey(p256UncompressedPoint: point) else { return }
        for _ in 0..<2 { _ = key.isValidSignature([UInt8](), for: [UInt8]()) }
        if known.count >= 4 { known.removeAll() }
        known[point] = key
        tabled = key
    }
    let openssl = fresh.isValidSignature(signature, for: message, digest: digest)
    let tables = tabled.isValidSignature(signature, for: message, digest: digest)
    precondition(openssl == tables, "the key's table says \(tables), OpenSSL says \(openssl)")
}
