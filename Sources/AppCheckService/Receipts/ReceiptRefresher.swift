import AppAttest
import Apple
import Basics
import Config
import Crypto
import Foundation
import Observability
import Storage

/// Refreshes App Attest receipts in the background: on a thread of its own (never an event loop or a verifier
/// thread, since each call waits on Apple), it claims the keys due in the shared store, posts each one's latest
/// receipt to Apple's risk-metric endpoint at most `maxPerSecond` times a second, verifies every new receipt
/// (signature to the pinned Apple Root CA - G3 or a configured extra receipt root, App ID, key, created at most
/// five minutes ago) and stores it with its risk metric. A receipt that does not verify is refused and the old one
/// kept. A 429 pauses the refresher for `retrySeconds`.
final class ReceiptRefresher: Sendable {
    /// Apple asks that a refreshed receipt be at most five minutes old.
    static let maximumReceiptAge: Int64 = 5 * 60
    /// One call to Apple, retries included.
    static let callTimeout: Duration = .seconds(15)

    private let store: any ReceiptRefreshStore
    private let apps: [String: Configuration.App]
    private let clients: [String: RiskMetricClient]
    private let verifier: ReceiptVerifier
    private let policy: ReceiptRefreshPolicy
    private let settings: Configuration.Receipts
    private let clock: TimeSource
    private let logger: Logger
    private let control = RefresherControl()
    /// `attestd_receipt_refreshes_total{app,outcome}`.
    let refreshes = CounterFamily(
        name: "attestd_receipt_refreshes_total",
        help: "Receipt refreshes with Apple's risk-metric endpoint, by app and outcome.",
        labelNames: ["app", "outcome"])
    /// `attestd_risk_metric{app}`.
    let riskMetrics = RiskMetricHistogram()
    /// `attestd_store_errors_total{component="receipts"}`.
    private let storeErrors: CounterFamily

    init(store: any ReceiptRefreshStore, projects: [Configuration.Project], clients: [String: RiskMetricClient],
         receiptRoots: [[UInt8]], settings: Configuration.Receipts, logger: Logger,
         storeErrors: CounterFamily = StoreErrorMetric.family(), clock: TimeSource = .system) {
        self.store = store
        self.storeErrors = storeErrors
        var apps: [String: Configuration.App] = [:]
        for app in projects.flatMap(\.apps) { apps[app.appID] = app }
        self.apps = apps
        self.clients = clients
        refreshes.declare(CounterFamily.combinations(clients.keys.sorted(), ReceiptRefreshPolicy.outcomeLabels))
        riskMetrics.declare(apps: clients.keys.sorted())
        self.verifier = ReceiptVerifier(trustAnchorsDER: receiptRoots)
        self.policy = ReceiptRefreshPolicy(
            minimumRefreshAgeSeconds: Int64(settings.minimumRefreshAgeSeconds), retrySeconds: Int64(settings.retrySeconds))
        self.settings = settings
        self.clock = clock
        self.logger = logger
    }

    /// Starts the refresher's thread.
    func start() {
        let thread = Thread { [self] in
            ThreadName.setCurrent("receipt-refresh")
            run()
            control.finished.signal()
        }
        thread.start()
        logger.info("receipt refresher started", [
            ("intervalMs", String(settings.intervalMilliseconds)), ("maxPerSecond", String(settings.maxPerSecond)),
            ("minRefreshAgeSeconds", String(settings.minimumRefreshAgeSeconds)), ("apps", String(clients.count)),
        ])
    }

    /// Stops after the call in progress, and waits for the thread; keys still claimed fall due again when their
    /// lease ends.
    func stop() {
        guard control.stop() else { return }
        control.finished.wait()
    }

    private func run() {
        do {
            let added = try store.scheduleUnscheduledKeys()
            if added > 0 { logger.info("keys registered before the refresh schedule existed were added to it", [("keys", String(added))]) }
        } catch {
            storeErrors.increment([StoreErrorMetric.receipts])
            logger.error("receipt refresher cannot add older keys to its schedule", [("error", error.description)])
        }
        let interval = Double(settings.intervalMilliseconds) / 1000
        while !control.isStopped {
            let refreshed = round()
            if let pausedUntil = control.pausedUntil, pausedUntil > clock.unixSeconds() {
                control.sleep(seconds: Double(pausedUntil - clock.unixSeconds()))
            } else if refreshed < settings.maxPerSecond {
                // Fewer keys were due than a round may take: nothing more is due before the next look.
                control.sleep(seconds: interval)
            }
        }
    }

    /// One claim of up to a second's worth of keys, refreshed one after the other at the configured pace.
    /// Returns how many were claimed.
    @discardableResult
    func round() -> Int {
        let now = clock.unixSeconds()
        let owner = UUID().uuidString
        let claims: [ReceiptRefreshClaim]
        do {
            claims = try store.claimReceiptRefreshes(
                now: now, limit: settings.maxPerSecond, leaseUntil: now + Int64(settings.leaseSeconds), owner: owner)
        } catch {
            storeErrors.increment([StoreErrorMetric.receipts])
            logger.error("receipt refresher cannot read the schedule", [("error", error.description)])
            return 0
        }
        let spacing = Duration.nanoseconds(1_000_000_000 / Int64(settings.maxPerSecond))
        for (index, claim) in claims.enumerated() {
            // Calls are spaced evenly, across rounds too, so no burst ever exceeds maxPerSecond.
            let wait = ContinuousClock.now.duration(to: control.nextCallSlot(spacing: spacing))
            if wait > .zero { control.sleep(seconds: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
            if control.isStopped || control.pausedUntil.map({ $0 > clock.unixSeconds() }) == true {
                // Left for later (or another node) without waiting for the lease to end.
                release(claims[index...], owner: owner, at: control.pausedUntil ?? clock.unixSeconds())
                break
            }
            let (outcome, completion) = refresh(claim, owner: owner)
            refreshes.increment([claim.appID, ReceiptRefreshPolicy.label(outcome)])
            do {
                if try !store.completeReceiptRefresh(completion) {
                    logger.warning("receipt refresh lost its lease before it completed; another node has the key",
                                   [("app", claim.appID), ("leaseSeconds", String(settings.leaseSeconds))])
                }
            } catch {
                storeErrors.increment([StoreErrorMetric.receipts])
                logger.error("receipt refresher cannot store an outcome", [("error", error.description)])
            }
            if policy.pausesRefresher(outcome) {
                let until = clock.unixSeconds() + policy.retrySeconds
                control.pause(until: until)
                logger.warning("Apple answered 429 to a receipt refresh: pausing the refresher",
                               [("seconds", String(policy.retrySeconds))])
            }
        }
        return claims.count
    }

    private func release(_ claims: ArraySlice<ReceiptRefreshClaim>, owner: String, at time: Int64) {
        for claim in claims {
            _ = try? store.completeReceiptRefresh(ReceiptRefreshCompletion(
                keyID: claim.keyID, owner: owner, checkedAt: clock.unixSeconds(), status: 0, nextRefreshAt: time))
        }
    }

    /// Posts one receipt and decides what to store.
    func refresh(_ claim: ReceiptRefreshClaim, owner: String) -> (ReceiptRefreshPolicy.Outcome, ReceiptRefreshCompletion) {
        let now = clock.unixSeconds()
        func done(_ outcome: ReceiptRefreshPolicy.Outcome, status: Int, receipt: Receipt? = nil, der: [UInt8]? = nil)
            -> (ReceiptRefreshPolicy.Outcome, ReceiptRefreshCompletion) {
            (outcome, ReceiptRefreshCompletion(
                keyID: claim.keyID, owner: owner, checkedAt: now, status: status, newReceipt: der,
                riskMetric: receipt?.riskMetric, nextRefreshAt: policy.nextRefresh(after: outcome, now: now)))
        }
        guard let app = apps[claim.appID], let client = clients[claim.appID] else { return done(.notConfigured, status: 0) }
        // The App ID the key was attested under (one of the app's; the stored receipt was verified when stored).
        guard let stored = try? SignedData.verifyingSignature(claim.receipt),
              let storedReceipt = try? Receipt(payload: stored.content),
              app.bundleIDs.contains(where: { "\(app.teamID).\($0)" == storedReceipt.appID }),
              let appID = AppID(storedReceipt.appID)
        else {
            logger.warning("stored receipt is unreadable or not of its app; not refreshed", [("app", claim.appID)])
            return done(.invalidReceipt, status: 0)
        }
        let answer: RiskMetricAnswer
        do {
            answer = try client.refresh(receipt: claim.receipt, deadline: .now + Self.callTimeout)
        } catch {
            if error.code == .unavailable && error.status == 429 { return done(.rateLimited, status: 429) }
            let loud = error.code == .authorizationRejected || error.code == .badRequest
            logger.log(loud ? .error : .warning, "receipt refresh with Apple failed", [
                ("app", claim.appID), ("code", error.code.description), ("error", error.message),
            ])
            return done(.failed, status: error.status ?? 0)
        }
        switch answer {
        case .notModified:
            return done(.notModified, status: 304)
        case .noData:
            return done(.noData, status: 404)
        case .newReceipt(let der):
            do {
                let receipt = try verifier.verify(
                    der, appID: appID, publicKey: claim.publicKey, at: now, maximumAge: Self.maximumReceiptAge)
                if let metric = receipt.riskMetric { riskMetrics.observe(metric, app: claim.appID) }
                return done(.refreshed(notBefore: receipt.notBefore), status: 200, receipt: receipt, der: der)
            } catch {
                logger.warning("Apple's new receipt did not verify: refused, the old one kept", [
                    ("app", claim.appID), ("reason", error.description),
                ])
                return done(.invalidReceipt, status: 200)
            }
        }
    }
}
