import AppAttest
import AppCheckMessages
import Basics
import Batching
import GRPC
import Observability
import Storage
import Tokens
import VerifierPool

/// Everything the exchange RPCs share: the verifiers, the keys, the state store, the pool they run on, and the
/// failure metric. One per process; every member is safe to use from any thread.
struct ExchangeContext: Sendable {
    let apps: AppRegistry
    let challenges: ChallengeCodec
    let artifacts: ArtifactKeyring
    let issuer: AppCheckTokenIssuer
    let tokenVerifier: AppCheckTokenVerifier
    let attestations: AttestationVerifier
    let assertions: AssertionVerifier
    let store: any StateStore
    let pool: VerifierPool
    /// `attestd_verification_failures_total{app,provider,reason}`.
    let failures: CounterFamily
    /// The time every expiry is checked against and every token is stamped with.
    let clock: TimeSource
    /// `attestd_store_errors_total{component}`: state-store calls that failed, each answered UNAVAILABLE.
    var storeErrors = StoreErrorMetric.family()

    /// Unix seconds now, by ``clock``.
    func now() -> Int64 { clock.unixSeconds() }

    /// A refusal as the client sees it (PERMISSION_DENIED, "App attestation failed.", whatever the reason), after
    /// the precise reason has gone to the log and the failure metric.
    func refuse(app: String, provider: Provider, reason: String, detail: String = "", context: RPCContext) -> GRPCStatus {
        failures.increment([app, provider.rawValue, reason])
        context.logger.info("refused", [("app", app), ("provider", provider.rawValue), ("reason", reason), ("detail", detail)])
        return GRPCStatus(.permissionDenied, "App attestation failed.")
    }

    /// An App Attest object refused by the verifier: INVALID_ARGUMENT when it is not even the CBOR envelope Apple
    /// defines (a malformed request, contract §5), else the usual refusal. Both are counted by reason.
    func refuse(app: String, _ error: AppAttestError, envelope: String, context: RPCContext) -> GRPCStatus {
        let status = refuse(app: app, provider: .appAttest, reason: error.reason.name, detail: error.detail, context: context)
        guard error.reason == .malformed(envelope) else { return status }
        return GRPCStatus(.invalidArgument, "The \(envelope) is not a CBOR App Attest object.")
    }

    /// The store could not answer: fail closed.
    func unavailable(_ error: StoreError, context: RPCContext) -> GRPCStatus {
        storeErrors.increment([StoreErrorMetric.exchange])
        context.logger.error("state store unavailable", [("error", error.description)])
        return GRPCStatus(.unavailable, "State store unavailable; try again.")
    }

    /// Runs one state-store call; a store that cannot answer becomes UNAVAILABLE (fail closed).
    func stored<T>(_ context: RPCContext, _ call: () throws(StoreError) -> T) throws(GRPCStatus) -> T {
        do {
            return try call()
        } catch {
            throw unavailable(error, context: context)
        }
    }

    /// Runs `work` on the verifier pool and answers with its result, joining the thread's batch; answers
    /// UNAVAILABLE at once when the queue is full, and DEADLINE_EXCEEDED without running it when the caller's
    /// deadline passed while it waited.
    func onPool<Response>(_ context: RPCContext, reply: RPCReply<Response>,
                          _ work: @escaping @Sendable () throws(GRPCStatus) -> Response) {
        onPool(context, reply: reply, untilStored: { (batch: Batch?) throws(GRPCStatus) in
            reply.succeed(try work(), joining: batch)
        })
    }

    /// Runs `work` on the verifier pool for an exchange that ends with a state-store write. `work` gets the thread's
    /// batch; it checks what it can (what it throws is the answer, joining the batch) and then hands its write to
    /// the store, joining the batch, with `answer(...)` as the completion: the verifier thread goes on to its next
    /// job while the write waits for its commit, and the answer is made when the write is stored. UNAVAILABLE at
    /// once when the queue is full, DEADLINE_EXCEEDED without running `work` when the caller's deadline passed
    /// while it waited.
    func onPool<Response>(_ context: RPCContext, reply: RPCReply<Response>,
                          untilStored work: @escaping @Sendable (Batch?) throws(GRPCStatus) -> Void) {
        // May run inline on an idle pool (verification, signing, no remote service), but only when the state store
        // cannot make the loop wait: a SQLite commit or a Redis round trip stays on the pool's threads.
        let accepted = pool.submit(.init(
            deadlineNanos: context.deadlineNanos, mayRunInline: store.answersWithoutWaiting,
            run: { batch in
                do throws(GRPCStatus) { try work(batch) } catch { reply.fail(error, joining: batch) }
            },
            expire: { batch in
                reply.fail(GRPCStatus(.deadlineExceeded, "Deadline exceeded while waiting for a verifier."), joining: batch)
            }), inlineOn: context.turn)
        if !accepted {
            reply.fail(GRPCStatus(.unavailable, "Overloaded; try again."))
        }
    }

    /// The completion of a store write that answers `reply`, joining the batch of the thread that stored it: `then`
    /// turns the write's outcome into the response (or a refusal); a store that could not answer is UNAVAILABLE
    /// (fail closed).
    func answer<Outcome, Response>(
        _ reply: RPCReply<Response>, _ context: RPCContext,
        then: @escaping @Sendable (Outcome) throws(GRPCStatus) -> Response
    ) -> StoreCompletion<Outcome> {
        { result, batch in
            do throws(GRPCStatus) {
                switch result {
                case .success(let outcome): reply.succeed(try then(outcome), joining: batch)
                case .failure(let error): throw unavailable(error, context: context)
                }
            } catch {
                reply.fail(error, joining: batch)
            }
        }
    }

    /// A freshly minted token for `app`, as the response message carries it; `riskMetric`, when given, becomes the
    /// token's `risk_metric` claim.
    func mint(for app: RegisteredApp, limitedUse: Bool, lifetime: TokenLifetime? = nil, riskMetric: Int? = nil) throws(GRPCStatus) -> AppCheckToken {
        let chosen = limitedUse ? TokenLifetime.limitedUse : (lifetime ?? app.tokenLifetime)
        do {
            let minted = try issuer.mint(
                appID: app.appID, projectNumber: app.projectNumber, projectID: app.projectID, lifetime: chosen,
                now: now(), riskMetric: riskMetric)
            return AppCheckToken(token: minted.token, ttl: ProtoDuration(seconds: minted.lifetime.seconds))
        } catch {
            throw GRPCStatus(.internal, "Could not sign the token.", cause: error)
        }
    }
}
