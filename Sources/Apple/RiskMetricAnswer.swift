/// What Apple's `attestationData` endpoint said about a receipt.
public enum RiskMetricAnswer: Sendable, Equatable {
    /// 200: a new receipt (DER/BER, decoded from Apple's base64), not yet verified: verify it as an attestation
    /// receipt (signature to Apple Root CA - G3, App ID, key, creation time at most 5 minutes old) before storing.
    case newReceipt([UInt8])
    /// 304: asked before the previous receipt's Not Before; keep the old receipt.
    case notModified
    /// 404: Apple holds no data for this receipt any more (about 30 days after attestation); re-attest.
    case noData
}
