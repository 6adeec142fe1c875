// fuzz-receipt: App Attest receipts, a CMS SignedData (BER or DER) around an ASN.1 payload: the CMS decoder, the
// payload parser, and the whole receipt verifier with the anchor the input names:
//
//   anchor length (2, big-endian) | anchor DER (empty: Apple Root CA - G3) | time (8, Unix seconds, big-endian) |
//   public key (65; all zero: not checked) | App ID length (1) | App ID | receipt
import AppAttest
import Crypto
import FuzzSupport

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let anchor = input.take(input.length16())
    let time = input.int64()
    let publicKey = input.take(65)
    let appID = AppID(String(decoding: input.take(Int(input.byte())), as: UTF8.self))
    let receipt = input.rest()

    if let signed = try? SignedData.decodeUnverified(receipt) {
        _ = try? Receipt(payload: signed.content)
        _ = try? signed.certificates()
    }
    _ = try? Receipt(payload: receipt)
    if let appID {
        let verifier = ReceiptVerifier(trustAnchorsDER: anchor.isEmpty ? AppleRoots.rootCAG3DER : [anchor])
        _ = try? verifier.verify(
            receipt, appID: appID, publicKey: publicKey.allSatisfy { $0 == 0 } ? nil : publicKey, at: time,
            maximumAge: 300)
    }
}
