import AppCheckMessages
import Crypto
import GRPC

/// `ExchangeDebugToken`: for simulators and CI, where App Attest does not work. The app's configuration lists the
/// SHA-256 of each debug token it accepts, never the secret; the comparison takes the same time whichever matches.
struct ExchangeDebugTokenHandler: UnaryHandler {
    let exchange: ExchangeContext

    func handle(_ request: ExchangeDebugTokenRequest, context: RPCContext, reply: RPCReply<AppCheckToken>) {
        let app: RegisteredApp
        do throws(GRPCStatus) {
            app = try exchange.apps.resolve(request.app)
            guard !request.debugToken.isEmpty else { throw GRPCStatus(.invalidArgument, "debug_token is required.") }
        } catch {
            reply.fail(error)
            return
        }
        exchange.onPool(context, reply: reply) { () throws(GRPCStatus) in
            let digest = SHA256.hash(Array(request.debugToken.utf8))
            let known = app.configuration.debugTokenHashes.reduce(false) { $0 || ConstantTime.equals($1, digest) }
            guard known else {
                throw exchange.refuse(app: app.appID, provider: .debug, reason: ServiceRefusal.unknownDebugToken, context: context)
            }
            return try exchange.mint(for: app, limitedUse: request.limitedUse)
        }
    }
}
