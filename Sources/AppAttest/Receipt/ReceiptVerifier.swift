import Basics
import Crypto

/// Verifies App Attest receipts (Apple's receipt-validation steps): the CMS signature, the signer's chain to the
/// pinned Apple Root CA - G3 (never the copy inside the receipt), then the payload against the App ID and key.
///
/// Receipt signing certificates are long-lived and shared by every receipt, so a verified signer is remembered:
/// a warm receipt costs one P-256 verification (the CMS signature).
public struct ReceiptVerifier: Sendable {
    private let trustStore: Result<TrustStore, AppAttestError>

    /// A verifier trusting `trustAnchorsDER` (Apple Root CA - G3 by default).
    public init(trustAnchorsDER: [[UInt8]] = AppleRoots.rootCAG3DER) {
        self.trustStore = Result { () throws(CryptoError) in try TrustStore(anchorsDER: trustAnchorsDER, capacity: 16) }
            .mapError { AppAttestError(.trustAnchorsInvalid, $0.description) }
    }

    /// Verifies `der` (a CMS SignedData, BER or DER) at `time` (Unix seconds; nil means now): signed by a chain to
    /// the anchors, for `appID`, and, when `publicKey` (65-byte point) is given, for that key. With `maximumAge`
    /// (seconds), the creation time may be at most that old (Apple says 5 minutes for refreshed receipts).
    public func verify(
        _ der: [UInt8], appID: AppID, publicKey: [UInt8]?, at time: Int64? = nil, maximumAge: Int64? = nil
    ) throws(AppAttestError) -> Receipt {
        let time = time ?? TimeSource.system.unixSeconds()
        let store = try trustStore.get()

        // 1. The PKCS#7 signature.
        let signed: SignedData
        do {
            signed = try SignedData.verifyingSignature(der)
        } catch where error.code == .badSignature {
            throw AppAttestError(.receiptSignatureInvalid, error.message)
        } catch {
            throw AppAttestError(.malformed("receipt"), error.message)
        }

        // 2. The signer's chain, up to the pinned root; the embedded certificates are untrusted intermediates.
        do {
            try store.verify(
                leafDER: signed.signerDER, intermediatesDER: signed.otherCertificatesDER, at: time, rememberLeaf: true)
        } catch {
            throw AppAttestError(.receiptChainInvalid(AttestationVerifier.chainReason(error.code)), error.message)
        }

        // 3. The payload.
        let receipt = try Receipt(payload: signed.content)

        // 4. The App ID.
        guard receipt.appID == appID.string else {
            throw AppAttestError(.receiptAppIdMismatch, "field 2 is \(receipt.appID), not \(appID.string)")
        }

        // 5. Freshness, when asked for.
        if let maximumAge, receipt.creationTime < time - maximumAge {
            throw AppAttestError(.receiptTooOld, "created at \(RFC3339.format(unixSeconds: receipt.creationTime))")
        }

        // 6. The attested key.
        if let publicKey {
            let certificateKey = DERCertificate(receipt.attestedCertificateDER).map { Array($0.publicKey) }
            guard certificateKey == publicKey else {
                throw AppAttestError(.receiptKeyMismatch, "field 3's key is not the attested key")
            }
        }
        return receipt
    }
}
