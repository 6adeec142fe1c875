import AppAttest
import AppAttestSimulator
import Crypto

/// The stand-in's `attestationData`: reads the receipt it is sent (signed by the simulator's receipt CA), and
/// answers as Apple does: 304 before the receipt's Not Before, 404 for a receipt older than Apple keeps data
/// (30 days), 400 `Incorrect Environment` for the other environment's receipt, else a new `RECEIPT` with the
/// configured risk metric, signed by the same CA. ``RiskMetricControls`` can force 304, 404 or a bad signature.
struct RiskMetricService: Sendable {
    enum Answer: Equatable {
        case newReceipt([UInt8])
        case notModified
        case noData
        case badPayload
        case incorrectEnvironment
        /// The receipt's App ID is not of the JWT's team.
        case wrongTeam
    }

    let receiptCA: SimulatedReceiptCA
    let environment: AppleEnvironment
    let controls: RiskMetricControls
    /// Apple keeps risk data this long after attestation.
    static let retentionSeconds: Int64 = 30 * 86_400

    func refresh(_ der: [UInt8], team: String, now: Int64) -> Answer {
        // The App ID is needed to verify, so the payload is read once unverified, then verified in full.
        guard let signed = try? SignedData.verifyingSignature(der), let unverified = try? Receipt(payload: signed.content),
              let appID = AppID(unverified.appID),
              let receipt = try? ReceiptVerifier(trustAnchorsDER: [receiptCA.rootDER]).verify(der, appID: appID, publicKey: nil, at: now)
        else { return .badPayload }
        let simulated: SimulatedEnvironment = environment == .production ? .production : .development
        guard receipt.environment == simulated.receiptEnvironment else { return .incorrectEnvironment }
        guard appID.teamID == team else { return .wrongTeam }
        let answer = controls.answer
        if answer == .notModified { return .notModified }
        if answer == .noData { return .noData }
        if answer == .normal, let notBefore = receipt.notBefore, now < notBefore { return .notModified }
        guard now - receipt.creationTime <= Self.retentionSeconds else { return .noData }
        // Apple's window between two refreshes: Not Before is counted from the first attestation-free refresh.
        var fresh = SimulatedReceipt.refreshed(
            appID: receipt.appID, credentialCertificateDER: receipt.attestedCertificateDER, clientDataHash: receipt.clientHash,
            environment: simulated, riskMetric: controls.riskMetric, createdAt: now * 1000)
        fresh[SimulatedReceipt.FieldType.notBefore] = SimulatedReceipt.time((now + controls.notBeforeSeconds) * 1000)
        guard answer == .badSignature, let token = fresh[SimulatedReceipt.FieldType.token] else {
            return .newReceipt(receiptCA.sign(fresh, encoding: .ber))
        }
        // DER keeps the content in one piece, so the token's bytes can be found and one changed after signing.
        var signedDER = receiptCA.sign(fresh, encoding: .der)
        guard let start = Self.firstIndex(of: token, in: signedDER) else { return .newReceipt(signedDER) }
        signedDER[start] = signedDER[start] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return .newReceipt(signedDER)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
