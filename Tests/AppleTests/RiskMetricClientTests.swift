import AppAttest
import AppAttestSimulator
import Apple
import AppleStandIn
import Foundation
import Testing

@Suite("Risk-metric client against the Apple stand-in over TLS")
struct RiskMetricClientTests {
    static let appID = "\(StandInFixture.teamID).dev.attestd.example"

    static func receipt(
        _ ca: SimulatedReceiptCA, environment: SimulatedEnvironment = .development, ageSeconds: Int64 = 0
    ) -> [UInt8] {
        let created = (Int64(Date().timeIntervalSince1970) - ageSeconds) * 1000
        let receipt = SimulatedReceipt.attest(
            appID: appID, credentialCertificateDER: ca.signingCertificateDER, clientDataHash: [UInt8](repeating: 7, count: 32),
            environment: environment, createdAt: created)
        return ca.sign(receipt, encoding: .ber)
    }

    @Test("a current attestation receipt is refreshed into a RECEIPT with the risk metric, signed by the CA")
    func refreshes() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca, riskMetric: 7)
        let answer = try fixture.riskMetricClient().refresh(receipt: Self.receipt(ca), deadline: StandInFixture.deadline())
        guard case .newReceipt(let der) = answer else {
            Issue.record("expected a new receipt, got \(answer)")
            return
        }
        let verified = try ReceiptVerifier(trustAnchorsDER: [ca.rootDER])
            .verify(der, appID: try #require(AppID(Self.appID)), publicKey: nil, maximumAge: 300)
        #expect(verified.type == "RECEIPT")
        #expect(verified.riskMetric == 7)
        #expect(verified.notBefore != nil)
    }

    @Test("refreshing the new receipt again before its Not Before is 304: keep the old one")
    func notModified() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        let client = fixture.riskMetricClient()
        guard case .newReceipt(let fresh) = try client.refresh(receipt: Self.receipt(ca), deadline: StandInFixture.deadline()) else {
            Issue.record("the first refresh gave no receipt")
            return
        }
        #expect(try client.refresh(receipt: fresh, deadline: StandInFixture.deadline()) == .notModified)
    }

    @Test("a receipt older than Apple keeps data for is 404: no data")
    func noData() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        let old = Self.receipt(ca, ageSeconds: 31 * 86_400)
        #expect(try fixture.riskMetricClient().refresh(receipt: old, deadline: StandInFixture.deadline()) == .noData)
    }

    @Test("a production receipt sent to the development host is 400 Incorrect Environment")
    func incorrectEnvironment() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        let error = #expect(throws: AppleError.self) {
            try fixture.riskMetricClient().refresh(receipt: Self.receipt(ca, environment: .production), deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains("Incorrect Environment") == true)
    }

    @Test("a receipt signed by another CA is 400 Bad Payload")
    func foreignReceipt() throws {
        let fixture = try StandInFixture(receiptCA: SimulatedReceiptCA())
        let error = #expect(throws: AppleError.self) {
            try fixture.riskMetricClient().refresh(receipt: Self.receipt(SimulatedReceiptCA()), deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains("Bad Payload") == true)
    }

    @Test("Apple answering 503 once is retried")
    func retries() throws {
        let ca = SimulatedReceiptCA()
        let fixture = try StandInFixture(receiptCA: ca)
        fixture.standIn.faults.fail(status: 503, count: 1)
        let answer = try fixture.riskMetricClient().refresh(receipt: Self.receipt(ca), deadline: StandInFixture.deadline())
        guard case .newReceipt = answer else {
            Issue.record("expected a new receipt after the retry, got \(answer)")
            return
        }
        #expect(fixture.standIn.requestCount == 2)
    }
}
