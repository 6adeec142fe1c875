import GRPC
import Storage

extension ExchangeContext {
    /// The key's latest risk metric for the token's `risk_metric` claim, when the app asks for it
    /// (`riskMetricClaim`); nil otherwise. The read costs a store round trip, so only those apps pay it, and it runs
    /// on the verifier thread before the exchange's write: run in the write's completion, it would hold up a Redis
    /// I/O thread, and every answer queued behind it, for a round trip of its own.
    func riskMetricClaim(_ app: RegisteredApp, _ keyID: [UInt8], _ context: RPCContext) throws(GRPCStatus) -> Int? {
        guard app.configuration.riskMetricClaim else { return nil }
        let store = self.store
        return try stored(context) { () throws(StoreError) in try store.riskMetric(of: keyID) }
    }
}
