import AppAttest
import AppAttestSimulator
import Crypto

/// The stand-in's `attestationData`: reads the receipt it is sent (signed by the simulator's receipt CA), and
/// answers as Apple does: 304 before the receipt's Not Before, 404 for a receipt older than Apple keeps data
/// (30 days), 400 `Incorrect Environment` for the other environment's receipt, else a new `RECEIPT` with the
/// configured risk metric, signed by the same CA.
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
    let riskMetric: Int
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
        if let notBefore = receipt.notBefore, now < notBefore { return .notModified }
        guard now - receipt.creationTime <= Self.retentionSeconds else { return .noData }
        let fresh = SimulatedReceipt.refreshed(
            appID: receipt.appID, credentialCertificateDER: receipt.attestedCertificateDER, clientDataHash: receipt.clientHash,
            environment: simulated, riskMetric: riskMetric, createdAt: now * 1000)
        return .newReceipt(receiptCA.sign(fresh, encoding: .ber))
    }
}
