// fuzz-fixed-key: differential. `FixedKeyVerifier` (precomputed tables, attestd's own ECDSA arithmetic around
// OpenSSL's) must answer exactly as OpenSSL's `EVP_PKEY_verify` does, for any message and any signature bytes, and
// never crash or leak. An input carries the key and what to check:
//
//   P-384 point (97, uncompressed) | digest (1: even SHA-256, odd SHA-384) | message length (2, big-endian, mod 2048) |
//   message | signature (the rest)
//
// The seeds are Apple's real App Attest leaf under Apple's real App Attestation CA 1 key, and that leaf with
// SHA-384 named (which must fail). Tables take milliseconds to build, so they are kept per key (a few at most).
import Crypto
import FuzzSupport

/// SubjectPublicKeyInfo for a P-384 key, up to its point: SEQUENCE { SEQUENCE { id-ecPublicKey, secp384r1 },
/// BIT STRING (97 bytes + the unused-bits byte) }.
let p384Prefix: [UInt8] = [
    0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00,
    0x22, 0x03, 0x62, 0x00,
]
nonisolated(unsafe) var verifiers: [[UInt8]: (PublicKey, FixedKeyVerifier)] = [:]

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let point = input.take(97)
    let digest: SignatureDigest = input.byte() % 2 == 0 ? .sha256 : .sha384
    let message = input.take(input.length16() % 2048)
    let signature = input.rest()

    let pair: (PublicKey, FixedKeyVerifier)
    if let known = verifiers[point] {
        pair = known
    } else {
        guard let key = try? PublicKey(subjectPublicKeyInfoDER: p384Prefix + point), let tables = FixedKeyVerifier(key)
        else { return }
        if verifiers.count >= 4 { verifiers.removeAll() }
        verifiers[point] = (key, tables)
        pair = (key, tables)
    }
    let openssl = pair.0.isValidSignature(signature, for: message, digest: digest)
    let tables = pair.1.isValidSignature(signature, for: message, digest: digest)
    precondition(openssl == tables, "FixedKeyVerifier says \(tables), OpenSSL says \(openssl)")
}
