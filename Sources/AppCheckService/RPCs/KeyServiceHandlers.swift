import AppAttest
import AppCheckMessages
import Crypto
import GRPC
import Storage

/// `attestd.v1.KeyService/GetAttestedKey`: what the registry knows about one attested key of an app.
struct GetAttestedKeyHandler: UnaryHandler {
    let exchange: ExchangeContext
    let callers: CallerCredentials

    func handle(_ request: GetAttestedKeyRequest, context: RPCContext, reply: RPCReply<AttestedKey>) {
        do throws(GRPCStatus) {
            try callers.authorize(context, .manageKeys)
            let app = try exchange.apps.resolve(request.app)
            guard request.keyID.count == 32 else { throw GRPCStatus(.invalidArgument, "key_id must be 32 bytes.") }
            exchange.onPool(context, reply: reply) { () throws(GRPCStatus) in
                try exchange.registeredKey(request.keyID, of: app, context: context).message
            }
        } catch {
            reply.fail(error)
        }
    }
}

/// `attestd.v1.KeyService/RevokeAttestedKey`: later assertions with the key are refused, on every node.
struct RevokeAttestedKeyHandler: UnaryHandler {
    let exchange: ExchangeContext
    let callers: CallerCredentials

    func handle(_ request: RevokeAttestedKeyRequest, context: RPCContext, reply: RPCReply<AttestedKey>) {
        do throws(GRPCStatus) {
            try callers.authorize(context, .manageKeys)
            let app = try exchange.apps.resolve(request.app)
            guard request.keyID.count == 32 else { throw GRPCStatus(.invalidArgument, "key_id must be 32 bytes.") }
            exchange.onPool(context, reply: reply) { () throws(GRPCStatus) in
                _ = try exchange.registeredKey(request.keyID, of: app, context: context)
                let store = exchange.store
                _ = try exchange.stored(context) { () throws(StoreError) in
                    try store.revokeKey(request.keyID, now: exchange.now())
                }
                context.logger.notice("key revoked", [("app", app.appID), ("reason", request.reason)])
                return try exchange.registeredKey(request.keyID, of: app, context: context).message
            }
        } catch {
            reply.fail(error)
        }
    }
}

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

extension AttestedKeyRecord {
    /// The record as the KeyService answers it.
    var message: AttestedKey {
        var key = AttestedKey()
        key.keyID = keyID
        key.app = appID
        key.environment = environment == "production" ? .production : .development
        key.firstAttestedTime = ProtoTimestamp(seconds: firstSeen)
        key.lastSeenTime = ProtoTimestamp(seconds: lastSeen)
        key.counter = counter
        key.riskMetric = riskMetric.map { UInt32(clamping: $0) } ?? 0
        key.revoked = revoked
        // The latest receipt's dates: it was verified when stored, so reading its payload is enough here.
        if let receipt, let signed = try? SignedData.verifyingSignature(receipt),
           let payload = try? Receipt(payload: signed.content) {
            key.receiptCreationTime = ProtoTimestamp(seconds: payload.creationTime)
            key.receiptNotBeforeTime = payload.notBefore.map { ProtoTimestamp(seconds: $0) }
            key.receiptExpirationTime = payload.expirationTime.map { ProtoTimestamp(seconds: $0) }
        }
        return key
    }
}
