import AppAttest
import AppAttestSimulator
import Apple
import AppleStandIn
import Testing

/// The stand-in's `attestationData` answers forced for tests of a refresher (`RiskMetricControls`).
@Suite("Risk-metric stand-in controls")
struct RiskMetricControlsTests {
    @Test("with notBeforeSeconds 0 a new receipt may be refreshed again at once")
    func refreshableAtOnce() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        fixture.standIn.receipts.notBeforeSeconds = 0
        let client = fixture.riskMetricClient()
        guard case .newReceipt(let first) = try client.refresh(receipt: RiskMetricClientTests.receipt(ca), deadline: StandInFixture.deadline()) else {
            Issue.record("the first refresh gave no receipt")
            return
        }
        guard case .newReceipt = try client.refresh(receipt: first, deadline: StandInFixture.deadline()) else {
            Issue.record("the second refresh gave no receipt")
            return
        }
    }

    @Test("forced 304 and 404 answer so whatever the receipt")
    func forcedAnswers() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        let client = fixture.riskMetricClient()
        fixture.standIn.receipts.answer = .notModified
        #expect(try client.refresh(receipt: RiskMetricClientTests.receipt(ca), deadline: StandInFixture.deadline()) == .notModified)
        fixture.standIn.receipts.answer = .noData
        #expect(try client.refresh(receipt: RiskMetricClientTests.receipt(ca), deadline: StandInFixture.deadline()) == .noData)
    }

    @Test("a badSignature receipt is refused by the receipt verifier as a bad signature")
    func badSignature() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        fixture.standIn.receipts.answer = .badSignature
        guard case .newReceipt(let der) = try fixture.riskMetricClient().refresh(
            receipt: RiskMetricClientTests.receipt(ca), deadline: StandInFixture.deadline()) else {
            Issue.record("expected a receipt")
            return
        }
        let verifier = ReceiptVerifier(trustAnchorsDER: [ca.rootDER])
        let appID = try #require(AppID(RiskMetricClientTests.appID))
        #expect(throws: AppAttestError(.receiptSignatureInvalid)) {
            try verifier.verify(der, appID: appID, publicKey: nil, maximumAge: 300)
        }
    }
}
