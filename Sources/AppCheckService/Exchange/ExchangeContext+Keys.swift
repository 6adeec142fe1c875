import AppAttest
import AppCheckMessages
import Crypto
import GRPC
import Storage

extension ExchangeContext {
    /// The registry record of `keyID`, which must belong to `app`: NOT_FOUND otherwise, so one app's operator
    /// cannot probe another app's keys.
    func registeredKey(_ keyID: [UInt8], of app: RegisteredApp, context: RPCContext) throws(GRPCStatus) -> AttestedKeyRecord {
        let store = self.store
        guard let record = try stored(context, { () throws(StoreError) in try store.attestedKey(keyID) }),
              record.appID == app.appID else {
            throw GRPCStatus(.notFound, "No attested key with this key_id for app \(app.appID).")
        }
        return record
    }
}
