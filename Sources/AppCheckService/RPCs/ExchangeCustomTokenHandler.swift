import AppCheckMessages
import GRPC
import Tokens

/// `ExchangeCustomToken`: a backend vouches for a client with an RS256 JWT signed by one of the project's service
/// accounts, made the way the Firebase Admin SDKs make them (audience, `app_id`, five-minute life, optional `ttl`).
struct ExchangeCustomTokenHandler: UnaryHandler {
    let exchange: ExchangeContext
    /// The custom-token verifier of each project, by project number.
    let verifiers: [String: CustomTokenVerifier]

    func handle(_ request: ExchangeCustomTokenRequest, context: RPCContext, reply: RPCReply<AppCheckToken>) {
        let app: RegisteredApp
        let verifier: CustomTokenVerifier
        do throws(GRPCStatus) {
            app = try exchange.apps.resolve(request.app)
            guard !request.customToken.isEmpty else { throw GRPCStatus(.invalidArgument, "custom_token is required.") }
            guard let found = verifiers[app.projectNumber] else {
                throw GRPCStatus(.failedPrecondition, "Custom tokens are not configured for project \(app.projectID).")
            }
            verifier = found
        } catch {
            reply.fail(error)
            return
        }
        exchange.onPool(context, reply: reply) { () throws(GRPCStatus) in
            let verified: VerifiedCustomToken
            do throws(CustomTokenError) {
                verified = try verifier.verify(request.customToken, appID: app.appID, now: exchange.now())
            } catch {
                throw exchange.refuse(app: app.appID, provider: .custom, reason: error.reason, context: context)
            }
            return try exchange.mint(for: app, limitedUse: request.limitedUse, lifetime: verified.lifetime)
        }
    }
}
