import Config
import Observability
import Storage

extension ReceiptRefresher {
    /// The refresher the configuration asks for, or nil (with the reason logged) when it is off, the store keeps
    /// no schedule, or no app has a developer key.
    static func make(configuration: Configuration, store: any StateStore, receiptRoots: [[UInt8]], logger: Logger,
                     storeErrors: CounterFamily) throws -> ReceiptRefresher? {
        guard configuration.receipts.enabled else { return nil }
        guard let schedule = store as? any ReceiptRefreshStore else {
            logger.warning("receipts.enabled, but the state store keeps no refresh schedule: receipts are not refreshed")
            return nil
        }
        let clients = try RiskMetricClients.make(projects: configuration.projects, apple: configuration.apple)
        if clients.isEmpty {
            logger.warning("receipts.enabled, but no app has a deviceCheck developer key to call Apple with")
        }
        return ReceiptRefresher(
            store: schedule, projects: configuration.projects, clients: clients, receiptRoots: receiptRoots,
            settings: configuration.receipts, logger: logger.with("component", "receipts"), storeErrors: storeErrors)
    }
}
