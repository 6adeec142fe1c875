@testable import AppCheckService
import Basics
import Config
import Observability
import Storage
import Testing

@Suite("Receipt refresher scheduling")
struct ReceiptRefreshTests {
    let policy = ReceiptRefreshPolicy(minimumRefreshAgeSeconds: 3_600, retrySeconds: 60)
    let now: Int64 = 1_800_000_000

    @Test("a new receipt is refreshed again no sooner than its Not Before")
    func notBeforeRules() {
        #expect(policy.nextRefresh(after: .refreshed(notBefore: now + 86_400), now: now) == now + 86_400)
    }

    @Test("a new receipt is refreshed again no sooner than the minimum age, whatever its Not Before")
    func minimumAgeRules() {
        #expect(policy.nextRefresh(after: .refreshed(notBefore: now + 10), now: now) == now + 3_600)
        #expect(policy.nextRefresh(after: .refreshed(notBefore: nil), now: now) == now + 3_600)
    }

    @Test("304, 404 and a refused receipt wait the minimum age; 429 and failures the retry delay")
    func otherOutcomes() {
        for outcome in [ReceiptRefreshPolicy.Outcome.notModified, .noData, .invalidReceipt] {
            #expect(policy.nextRefresh(after: outcome, now: now) == now + 3_600)
        }
        #expect(policy.nextRefresh(after: .rateLimited, now: now) == now + 60)
        #expect(policy.nextRefresh(after: .failed, now: now) == now + 60)
    }

    @Test("only a 429 pauses the whole refresher")
    func pauses() {
        #expect(policy.pausesRefresher(.rateLimited))
        #expect(!policy.pausesRefresher(.failed))
        #expect(!policy.pausesRefresher(.noData))
    }

    @Test("a zero minimum age never makes a 304 due again in the same second")
    func zeroAge() {
        let eager = ReceiptRefreshPolicy(minimumRefreshAgeSeconds: 0, retrySeconds: 0)
        #expect(eager.nextRefresh(after: .notModified, now: now) == now + 1)
        #expect(eager.nextRefresh(after: .failed, now: now) == now + 1)
    }

    @Test("a key of an app without a developer key is put off, counted, and not claimed again at once")
    func unconfiguredApp() throws {
        let clock = now
        let store = MemoryStateStore(clock: .fixed(unixSeconds: clock))
        try store.registerKey(AttestedKeyRecord(
            keyID: [1], appID: "1:1:ios:a", environment: "development", publicKey: [4], firstSeen: now, lastSeen: now,
            receipt: [0x30]))
        let refresher = ReceiptRefresher(
            store: store, projects: [], clients: [:], receiptRoots: [],
            settings: Configuration.Receipts(enabled: true, maxPerSecond: 100, retrySeconds: 60),
            logger: Logger(label: "test"), clock: .fixed(unixSeconds: clock))
        #expect(refresher.round() == 1)
        #expect(refresher.refreshes.value(["1:1:ios:a", "notConfigured"]) == 1)
        #expect(try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "x").isEmpty)
        #expect(try store.claimReceiptRefreshes(now: now + 86_400, limit: 10, leaseUntil: now + 86_460, owner: "x").count == 1)
    }

    @Test("the receipts section is off by default and read with its limits")
    func configuration() throws {
        func parse(_ receipts: String) throws(ConfigurationError) -> Configuration {
            let text = """
                {"listeners":[{"address":"127.0.0.1","port":8080}],
                 "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
                 \(receipts.isEmpty ? "" : "\"receipts\":\(receipts),")
                 "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                    {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123",
                     "bundleIds":["dev.attestd.example"],"environment":"development"}]}]}
                """
            return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
        }
        let defaults = try parse("")
        #expect(!defaults.receipts.enabled)
        #expect(defaults.receipts.minimumRefreshAgeSeconds == 86_400)
        let read = try parse(#"{"enabled":true,"intervalMs":250,"minRefreshAgeSeconds":0,"maxPerSecond":3,"retrySeconds":9,"leaseSeconds":30}"#)
        #expect(read.receipts.enabled)
        #expect(read.receipts.intervalMilliseconds == 250)
        #expect(read.receipts.minimumRefreshAgeSeconds == 0)
        #expect(read.receipts.maxPerSecond == 3)
        #expect(read.receipts.retrySeconds == 9)
        #expect(read.receipts.leaseSeconds == 30)
        #expect(throws: ConfigurationError.self) { try parse(#"{"maxPerSecond":0}"#) }
        #expect(throws: ConfigurationError.self) { try parse(#"{"everySecond":true}"#) }
    }
}

@Suite("Risk metric token claim configuration")
struct RiskMetricClaimConfigurationTests {
    func parse(_ member: String) throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123",
                 "bundleIds":["dev.attestd.example"],\(member)"environment":"development"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("an app's tokens carry no risk_metric claim unless it sets riskMetricClaim")
    func offByDefault() throws {
        #expect(try !parse("").projects[0].apps[0].riskMetricClaim)
        #expect(try parse(#""riskMetricClaim":true,"#).projects[0].apps[0].riskMetricClaim)
        #expect(throws: ConfigurationError.self) { try parse(#""riskMetricClaim":"yes","#) }
    }
}
