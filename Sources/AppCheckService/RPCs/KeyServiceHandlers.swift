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
