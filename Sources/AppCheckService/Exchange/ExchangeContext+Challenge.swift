import AppAttest
import AppCheckMessages
import Batching
import Crypto
import GRPC
import Storage
import Tokens

extension ExchangeContext {
    /// Opens a challenge for `app`, or refuses with the reason (forged, expired, for another app, malformed).
    func openChallenge(_ bytes: [UInt8], app: RegisteredApp, provider: Provider, context: RPCContext) throws(GRPCStatus) -> OpenedChallenge {
        guard !bytes.isEmpty else { throw GRPCStatus(.invalidArgument, "challenge is required.") }
        do {
            return try challenges.open(bytes, appID: app.appID, now: now())
        } catch {
            throw refuse(app: app.appID, provider: provider, reason: error.reason, context: context)
        }
    }

    /// Refuses a challenge that expired after it was opened on arrival (its request waited in the pool's queue, or
    /// Apple's steps took their time): checked by this node's clock just before the store consumes it, which checks
    /// again by its own.
    func checkStillLive(_ challenge: OpenedChallenge, app: RegisteredApp, provider: Provider, context: RPCContext) throws(GRPCStatus) {
        guard now() < challenge.expiresAt else {
            throw refuse(app: app.appID, provider: provider, reason: ChallengeError.expired.reason, context: context)
        }
    }
}
