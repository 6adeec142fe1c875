import AppCheckMessages
import Batching
import GRPC
import Storage
import Tokens

/// `VerifyAppCheckToken`, replay protection: the first call for a valid token records it and answers
/// `already_consumed = false`; every later call, on any node sharing the state store, answers true until the
/// token expires. An invalid token is PERMISSION_DENIED whatever its consumed state. Only a backend of the project
/// may call it: anyone else could burn a device's limited-use tokens, or probe whether they were used.
struct VerifyAppCheckTokenHandler: UnaryHandler {
    let exchange: ExchangeContext
    let callers: CallerCredentials

    func handle(_ request: VerifyAppCheckTokenRequest, context: RPCContext, reply: RPCReply<VerifyAppCheckTokenResponse>) {
        let project: String
        do throws(GRPCStatus) {
            let caller = try callers.authenticate(context)
            project = try ProjectResourceName(parsing: request.project).project
            try callers.check(caller, may: .actForProject(project), context)
            guard exchange.apps.hasProject(project) else { throw GRPCStatus(.notFound, "Project \(project) is not served here.") }
            guard !request.appCheckToken.isEmpty else { throw GRPCStatus(.invalidArgument, "app_check_token is required.") }
        } catch {
            reply.fail(error)
            return
        }
        exchange.onPool(context, reply: reply, untilStored: { (batch: Batch?) throws(GRPCStatus) in
            let token: VerifiedAppCheckToken
            do throws(AppCheckTokenError) {
                token = try exchange.tokenVerifier.verify(request.appCheckToken, project: project, now: exchange.now())
            } catch {
                throw exchange.refuse(app: "", provider: .token, reason: error.reason, context: context)
            }
            // Checked again just before the store consumes it, by this node's clock (the store checks by its own).
            guard exchange.now() < token.expiresAt else {
                throw exchange.refuse(app: "", provider: .token, reason: AppCheckTokenError.expired.reason, context: context)
            }
            // The write joins this thread's batch; the answer is made once it is stored.
            exchange.store.consumeToken(
                token.jti, expiresAt: token.expiresAt, joining: batch,
                completion: exchange.answer(reply, context) { first in VerifyAppCheckTokenResponse(alreadyConsumed: !first) })
        })
    }
}
