// fuzz-attestation: the whole attestation verifier. An input carries its own trust anchors, so that simulated
// objects (signed by a simulated CA) reach every step, not only the chain check:
//
//   attestation anchor length (2, big-endian) | attestation anchor DER | receipt anchor length (2) | receipt anchor
//   DER | keyId (32) | clientDataHash length (1) | clientDataHash (the real vector's is not a digest) | time (8,
//   Unix seconds, big-endian) | environment (1: even development, odd production) | App ID length (1) | App ID |
//   attestation object
//
// An empty anchor means Apple's root (the real vector).
import AppAttest
import FuzzSupport

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let attestationAnchor = input.take(input.length16())
    let receiptAnchor = input.take(input.length16())
    let keyID = input.take(32)
    let clientDataHash = input.take(Int(input.byte()))
    let time = input.int64()
    let environment: AppAttestEnvironment = input.byte() & 1 == 0 ? .development : .production
    let appID = AppID(String(decoding: input.take(Int(input.byte())), as: UTF8.self))
    let object = input.rest()

    let verifier = AttestationVerifier(
        trustAnchorsDER: attestationAnchor.isEmpty ? AppleRoots.appAttestationRootDER : [attestationAnchor],
        receiptVerifier: ReceiptVerifier(trustAnchorsDER: receiptAnchor.isEmpty ? AppleRoots.rootCAG3DER : [receiptAnchor]))
    let appIDs = [appID, AppID("0123456789.com.example.myapp")].compactMap { $0 }
    if let verified = try? verifier.verify(
        attestationObject: object, keyID: keyID, clientDataHash: clientDataHash, appIDs: appIDs,
        environment: environment, at: time)
    {
        _ = verified.receipt
    }
    _ = try? AttestationObject(object)
}
