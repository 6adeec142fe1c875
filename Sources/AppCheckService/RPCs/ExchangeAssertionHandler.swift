import AppAttest
import AppCheckMessages
import Crypto
import GRPC
import Storage
import Tokens

/// `ExchangeAppAttestAssertion`: a device that attested before proves it still holds its key. The artifact names
/// the key; the counter is checked against the stored one by the verifier and then advanced atomically by the
/// store, so of two requests racing with the same counter exactly one wins.
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
        exchange.onPool(context, reply: reply) { () throws(GRPCStatus) in
            func refuse(_ reason: String, _ detail: String = "") -> GRPCStatus {
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
                throw refuse("wrongEnvironment", "development key on a production app")
            }
            let now = ExchangeContext.now()
            let store = exchange.store
            guard let record = try exchange.stored(context, { () throws(StoreError) in try store.attestedKey(artifact.keyID) }) else {
                throw refuse("unknownKey")
            }
            guard !record.revoked else { throw refuse("keyRevoked") }
            let verified: VerifiedAssertion
            do throws(AppAttestError) {
                verified = try exchange.assertions.verify(
                    assertion: request.assertion, publicKey: artifact.publicKey,
                    clientDataHash: SHA256.hash(request.artifact, request.challenge), appIDs: app.verifierAppIDs,
                    previousCounter: record.counter)
            } catch {
                throw exchange.refuse(app: app.appID, error, envelope: "assertion", context: context)
            }
            // One round trip: the challenge is consumed, then the counter compared and advanced atomically.
            let outcome = try exchange.stored(context) { () throws(StoreError) in
                try store.consumeChallenge(
                    challenge.nonce, expiresAt: challenge.expiresAt, thenAdvance: artifact.keyID, to: verified.counter, now: now)
            }
            switch outcome {
            case .counter(.advanced): break
            case .challengeReplayed: throw refuse("challengeReplayed")
            case .counter(.notIncreasing(let stored)): throw refuse("counterNotIncreasing", "stored \(stored), offered \(verified.counter)")
            case .counter(.revoked): throw refuse("keyRevoked")
            case .counter(.unknownKey): throw refuse("unknownKey")
            }
            return try exchange.mint(
                for: app, limitedUse: request.limitedUse, riskMetric: try exchange.riskMetricClaim(app, artifact.keyID, context))
        }
    }
}
