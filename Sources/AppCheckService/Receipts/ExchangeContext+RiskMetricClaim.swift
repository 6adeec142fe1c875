import GRPC
import Storage

extension ExchangeContext {
    /// The key's latest risk metric for the token's `risk_metric` claim, when the app asks for it
    /// (`riskMetricClaim`); nil otherwise. The read costs a store round trip, so only those apps pay it.
    func riskMetricClaim(_ app: RegisteredApp, _ keyID: [UInt8], _ context: RPCContext) throws(GRPCStatus) -> Int? {
        guard app.configuration.riskMetricClaim else { return nil }
        let store = self.store
        return try stored(context) { () throws(StoreError) in try store.attestedKey(keyID) }?.riskMetric
    }
}
