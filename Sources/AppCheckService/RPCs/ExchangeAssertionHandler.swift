import AppAttest
import AppCheckMessages
import Batching
import Crypto
import GRPC
import Storage
import Tokens

/// `ExchangeAppAttestAssertion`: a device that attested before proves it still holds its key. The artifact names
/// the key and carries its public key (sealed by attestd), so the signature is checked without reading the store;
/// then one store write consumes the challenge and compares-and-advances the counter atomically (refusing an
/// unknown or revoked key), so of two requests racing with the same counter exactly one wins, and an exchange
/// costs the store one write, batched with others'. The verifier thread does not wait for it: the token is minted
/// and sent by whichever thread stores the write.
struct ExchangeAssertionHandler: UnaryHandler {
    let exchange: ExchangeContext

    func handle(_ request: ExchangeAppAttestAssertionRequest, context: RPCContext, reply: RPCReply<AppCheckToken>) {
        let app: RegisteredApp
        let challenge: OpenedChallenge
        do throws(GRPCStatus) {
            app = try exchange.apps.resolve(request.app)
            guard !request.artifact.isEmpty else { throw GRPCStatus(.invalidArgument, "artifact is required.") }
            guard !request.assertion.isEmpty else { throw GRPCStatus(.invalidArgument, "assertion is required.") }
            challenge = try exchange.openChallenge(request.challenge, app: app, provider: .appAttest, context: context)
        } catch {
            reply.fail(error)
            return
        }
        exchange.onPool(context, reply: reply, untilStored: { (batch: Batch?) throws(GRPCStatus) in
            @Sendable func refuse(_ reason: String, _ detail: String = "") -> GRPCStatus {
                exchange.refuse(app: app.appID, provider: .appAttest, reason: reason, detail: detail, context: context)
            }
            let artifact: Artifact
            do throws(ArtifactError) {
                artifact = try exchange.artifacts.open(request.artifact, appID: app.appID)
            } catch {
                throw refuse(error.reason)
            }
            // A key attested in development never serves a production app (the attestation already enforced it;
            // this holds even if the app's configuration changed since).
            if app.configuration.environment == .production && artifact.environment != .production {
                throw refuse(AppAttestError.Reason.wrongEnvironment.name, "development key on a production app")
            }
            let now = exchange.now()
            let store = exchange.store
            let verified: VerifiedAssertion
            do throws(AppAttestError) {
                // The stored counter is not read first: the store's compare-and-advance below is the check that
                // counts (a read would be stale under concurrency anyway), so only counter 0 is refused here.
                verified = try exchange.assertions.verify(
                    assertion: request.assertion, publicKey: artifact.publicKey,
                    clientDataHash: SHA256.hash(request.artifact, request.challenge), appIDs: app.verifierAppIDs,
                    previousCounter: 0)
            } catch {
                throw exchange.refuse(app: app.appID, error, envelope: "assertion", context: context)
            }
            // The key's risk metric is read first (only for apps whose tokens carry it): the completion below may
            // run on a Redis I/O thread, which must not wait for a read of its own.
            let riskMetric = try exchange.riskMetricClaim(app, artifact.keyID, context)
            try exchange.checkStillLive(challenge, app: app, provider: .appAttest, context: context)
            // One write: the challenge is consumed, then the counter compared and advanced atomically. The write joins
            // this thread's batch; the token is minted only once it is stored.
            store.consumeChallenge(
                challenge.nonce, expiresAt: challenge.expiresAt, thenAdvance: artifact.keyID, to: verified.counter, now: now,
                joining: batch, completion: exchange.answer(reply, context) { outcome throws(GRPCStatus) in
                    switch outcome {
                    case .counter(.advanced): break
                    case .challengeReplayed: throw refuse(ServiceRefusal.challengeReplayed)
                    case .counter(.notIncreasing(let stored)): throw refuse("counterNotIncreasing", "stored \(stored), offered \(verified.counter)")
                    case .counter(.revoked): throw refuse(ServiceRefusal.keyRevoked)
                    case .counter(.unknownKey): throw refuse(ServiceRefusal.unknownKey)
                    }
                    return try exchange.mint(for: app, limitedUse: request.limitedUse, riskMetric: riskMetric)
                })
        })
    }
}
