// fuzz-assertion: the assertion verifier. An input carries the attested key and what it was asked to sign, so that
// simulated assertions reach the rpIdHash and counter checks after a good signature:
//
//   public key (65, uncompressed P-256 point) | clientDataHash (32) | previous counter (4, big-endian) |
//   App ID length (1) | App ID | assertion object
import AppAttest
import FuzzSupport

let verifier = AssertionVerifier(keyCacheCapacity: 16)

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let publicKey = input.take(65)
    let clientDataHash = input.take(32)
    let previousCounter = input.take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let appID = AppID(String(decoding: input.take(Int(input.byte())), as: UTF8.self))
    let assertion = input.rest()

    _ = try? verifier.verify(
        assertion: assertion, publicKey: publicKey, clientDataHash: clientDataHash, appIDs: [appID].compactMap { $0 },
        previousCounter: previousCounter)
    _ = try? AssertionObject(assertion)
}
