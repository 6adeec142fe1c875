import AppAttest
import AppCheckMessages
import Batching
import Crypto
import GRPC
import Storage
import Tokens

/// `ExchangeAppAttestAttestation`: the first handshake of a device. The challenge is checked on the event loop
/// (an HMAC); Apple's steps, the single use of the challenge, the key's registration, the artifact and the token
/// run on the verifier pool.
struct ExchangeAttestationHandler: UnaryHandler {
    let exchange: ExchangeContext

    func handle(_ request: ExchangeAppAttestAttestationRequest, context: RPCContext,
                reply: RPCReply<ExchangeAppAttestAttestationResponse>) {
        let app: RegisteredApp
        let challenge: OpenedChallenge
        do throws(GRPCStatus) {
            app = try exchange.apps.resolve(request.app)
            guard !request.attestationStatement.isEmpty else { throw GRPCStatus(.invalidArgument, "attestation_statement is required.") }
            guard request.keyID.count == 32 else { throw GRPCStatus(.invalidArgument, "key_id must be the 32-byte App Attest key id.") }
            challenge = try exchange.openChallenge(request.challenge, app: app, provider: .appAttest, context: context)
        } catch {
            reply.fail(error)
            return
        }
        exchange.onPool(context, reply: reply, untilStored: { (batch: Batch?) throws(GRPCStatus) in
            let verified: VerifiedAttestation
            do throws(AppAttestError) {
                verified = try exchange.attestations.verify(
                    attestationObject: request.attestationStatement, keyID: request.keyID,
                    clientDataHash: SHA256.hash(request.challenge), appIDs: app.verifierAppIDs,
                    environment: app.attestEnvironment)
            } catch {
                throw exchange.refuse(app: app.appID, error, envelope: "attestationObject", context: context)
            }
            if let allowed = app.configuration.allowedValidationCategories, let category = verified.extensions.validationCategory,
               !allowed.contains(category) {
                throw exchange.refuse(app: app.appID, provider: .appAttest, reason: AppAttestError.Reason.validationCategoryNotAllowed.name,
                                      detail: "category \(category)", context: context)
            }
            let now = exchange.now()
            let store = exchange.store
            let record = AttestedKeyRecord(
                keyID: verified.keyID, appID: app.appID, environment: verified.environment.rawValue,
                publicKey: verified.publicKey, firstSeen: now, lastSeen: now,
                receipt: verified.receipt.isVerified ? (try? AttestationObject(request.attestationStatement))?.receipt : nil,
                riskMetric: verified.receipt.riskMetric)
            try exchange.checkStillLive(challenge, app: app, provider: .appAttest, context: context)
            // One write: the challenge is consumed and the key registered together, or neither. The write joins this
            // thread's batch; the artifact and token are made only once it is stored.
            store.consumeChallenge(
                challenge.nonce, expiresAt: challenge.expiresAt, thenRegister: record, joining: batch,
                completion: exchange.answer(reply, context) { registered throws(GRPCStatus) in
                    guard registered else {
                        throw exchange.refuse(app: app.appID, provider: .appAttest, reason: ServiceRefusal.challengeReplayed, context: context)
                    }
                    logReceipt(verified.receipt, context: context)
                    guard let artifact = Artifact(
                        appID: app.appID, keyID: verified.keyID, publicKey: verified.publicKey,
                        environment: verified.environment == .production ? .production : .development, attestedAt: now)
                    else { throw GRPCStatus(.internal, "Could not build the artifact.") }
                    return ExchangeAppAttestAttestationResponse(
                        artifact: try exchange.seal(artifact, context: context),
                        appCheckToken: try exchange.mint(for: app, limitedUse: request.limitedUse))
                })
        })
    }

    /// The receipt is a risk signal, not one of Apple's steps: a missing or unverifiable one is logged, not refused.
    private func logReceipt(_ receipt: ReceiptOutcome, context: RPCContext) {
        switch receipt {
        case .verified: break
        case .missing, .empty: context.logger.info("attestation without a receipt")
        case .unverifiable(let error): context.logger.info("attestation receipt unverifiable", [("reason", error.reason.name)])
        }
    }
}
