import AppAttest
import AppAttestSimulator
import AppCheckMessages
@testable import AppCheckService
import Basics
import Crypto
import Foundation
import GRPC
import Observability
import Storage
import Synchronization
import Testing
import Tokens
import VerifierPool

/// Time that moves one second each time the service reads it: the reads an exchange makes (the first check, then
/// the check just before the consume) see successive seconds.
final class TickingTime: Sendable {
    private let next: Atomic<Int64>

    init(startingAt unixSeconds: Int64) { next = Atomic(unixSeconds) }

    var source: TimeSource {
        TimeSource(unixSeconds: { [self] in next.add(1, ordering: .relaxed).oldValue })
    }
}

/// The one answer of a call, waited for by the test.
final class ReplyBox<Response: Sendable>: Sendable {
    private let result = Mutex<Result<Response, GRPCStatus>?>(nil)
    private let answered = DispatchSemaphore(value: 0)

    func put(_ result: Result<Response, GRPCStatus>) {
        self.result.withLock { $0 = result }
        answered.signal()
    }

    func wait() -> Result<Response, GRPCStatus> {
        answered.wait()
        return result.withLock { $0! }
    }
}

@Suite("Expiry between the first check and the consume")
struct ExchangeExpiryTests {
    static let project = "123456789012"
    static let appID = "1:123456789012:ios:0123456789abcdef"
    /// When the limited-use token is minted; it expires ``TokenLifetime/limitedUse`` later.
    static let mintedAt: Int64 = 1_800_000_000

    let signingKeys: SigningKeySet
    let callers = CallerCredentials(callers: [
        .init(name: "shop", role: .backend, projects: [ExchangeExpiryTests.project], tokenHashes: [SHA256.hash(Array("shop-token".utf8))]),
    ])

    init() throws {
        signingKeys = try SigningKeySet(keys: [PrivateKey.generate(.es256)], signingWith: .es256)
    }

    /// An exchange context whose service reads `clock`, and whose store (the in-memory one) reads `storeClock`.
    func exchange(clock: TimeSource, storeClock: TimeSource) throws -> ExchangeContext {
        let challengeKey = try #require(ChallengeKey(id: 1, secret: Array(repeating: 7, count: 32)))
        let artifactKey = try #require(ArtifactKey(version: 1, secret: Array(repeating: 9, count: 32)))
        return ExchangeContext(
            apps: AppRegistry(projects: [
                .init(number: Self.project, id: "shop-project", apps: [
                    .init(appID: Self.appID, teamID: "TEAM123456", bundleIDs: ["shop.app"], environment: .development),
                ]),
            ]),
            challenges: ChallengeCodec(keys: [challengeKey]),
            artifacts: try #require(ArtifactKeyring(keys: [artifactKey])),
            issuer: AppCheckTokenIssuer(keys: signingKeys),
            tokenVerifier: AppCheckTokenVerifier(keys: signingKeys),
            attestations: AttestationVerifier(),
            assertions: AssertionVerifier(),
            store: MemoryStateStore(clock: storeClock),
            pool: VerifierPool(threads: 1, capacity: 4, name: "expiry-test"),
            failures: CounterFamily(name: "failures", help: "test", labelNames: ["app", "provider", "reason"]),
            clock: clock)
    }

    /// A limited-use token, as an app would get it from an exchange at ``mintedAt``.
    func limitedUseToken() throws -> MintedAppCheckToken {
        try AppCheckTokenIssuer(keys: signingKeys).mint(
            appID: Self.appID, projectNumber: Self.project, projectID: "shop-project", lifetime: .limitedUse,
            now: Self.mintedAt)
    }

    /// An assertion exchange for a key the store knows, with a challenge issued at ``mintedAt`` (it expires
    /// ``ChallengeCodec/ttlSeconds`` later), as `ExchangeAppAttestAssertion` receives it.
    func assertionRequest(_ exchange: ExchangeContext) throws -> ExchangeAppAttestAssertionRequest {
        let device = SimulatedDevice(appID: "TEAM123456.shop.app", environment: .development,
                                     ca: SimulatedAppleCA(), receiptCA: SimulatedReceiptCA())
        let key = device.generateKey()
        try exchange.store.registerKey(AttestedKeyRecord(
            keyID: key.keyID, appID: Self.appID, environment: "development", publicKey: key.publicKey,
            firstSeen: Self.mintedAt, lastSeen: Self.mintedAt))
        let artifact = try exchange.artifacts.seal(try #require(Artifact(
            appID: Self.appID, keyID: key.keyID, publicKey: key.publicKey, environment: .development, attestedAt: Self.mintedAt)))
        let challenge = exchange.challenges.issue(appID: Self.appID, now: Self.mintedAt)
        return ExchangeAppAttestAssertionRequest(
            app: "projects/\(Self.project)/apps/\(Self.appID)", artifact: artifact,
            assertion: device.assert(key, clientDataHash: SHA256.hash(artifact, challenge)), challenge: challenge)
    }

    /// What `ExchangeAppAttestAssertion` answers for `request`.
    func exchangeAssertion(_ request: ExchangeAppAttestAssertionRequest, exchange: ExchangeContext) -> Result<AppCheckToken, GRPCStatus> {
        let answer = ReplyBox<AppCheckToken>()
        ExchangeAssertionHandler(exchange: exchange).handle(
            request, context: RPCContext(requestID: "t", deadlineNanos: nil, logger: Logger(label: "test")),
            reply: RPCReply { result, _ in answer.put(result) })
        return answer.wait()
    }

    /// What `VerifyAppCheckToken` answers for `token`.
    func verify(_ token: String, exchange: ExchangeContext) -> Result<VerifyAppCheckTokenResponse, GRPCStatus> {
        let answer = ReplyBox<VerifyAppCheckTokenResponse>()
        VerifyAppCheckTokenHandler(exchange: exchange, callers: callers).handle(
            VerifyAppCheckTokenRequest(project: "projects/\(Self.project)", appCheckToken: token),
            context: RPCContext(requestID: "t", deadlineNanos: nil, logger: Logger(label: "test"), authorization: "Bearer shop-token"),
            reply: RPCReply { result, _ in answer.put(result) })
        return answer.wait()
    }

    @Test("a limited-use token checked a second before it expires is consumed once")
    func consumedWhileLive() throws {
        let minted = try limitedUseToken()
        // All four reads (two per call) fall before the expiry.
        let exchange = try exchange(
            clock: TickingTime(startingAt: minted.expiresAt - 10).source, storeClock: .fixed(unixSeconds: minted.expiresAt - 10))
        #expect(try verify(minted.token, exchange: exchange).get().alreadyConsumed == false)
        #expect(try verify(minted.token, exchange: exchange).get().alreadyConsumed == true)
        exchange.pool.shutdown()
    }

    @Test("a limited-use token that expires between the first check and the consume is refused, not consumed")
    func expiresBeforeConsume() throws {
        let minted = try limitedUseToken()
        // The verifier's check reads the last live second; the check before the consume reads the expiry. The store's
        // own clock still says live, so only the service's second check can refuse it.
        let exchange = try exchange(
            clock: TickingTime(startingAt: minted.expiresAt - 1).source, storeClock: .fixed(unixSeconds: minted.expiresAt - 3))
        let result = verify(minted.token, exchange: exchange)
        #expect(throws: GRPCStatus.self) { try result.get() }
        if case .failure(let status) = result { #expect(status.code == .permissionDenied) }
        #expect(exchange.failures.value(["", "app_check_token", AppCheckTokenError.expired.reason]) == 1)
        // Nothing was consumed: the store has not seen the token.
        let consumed = ReplyBox<Bool>()
        exchange.store.consumeToken(minted.jti, expiresAt: minted.expiresAt, joining: nil) { result, _ in
            consumed.put(result.mapError { GRPCStatus(.internal, $0.description) })
        }
        #expect(try consumed.wait().get() == true)
        exchange.pool.shutdown()
    }

    @Test("an assertion whose challenge is live at every check gets a token")
    func challengeLive() throws {
        let expiresAt = Self.mintedAt + 300
        let exchange = try exchange(
            clock: TickingTime(startingAt: expiresAt - 10).source, storeClock: .fixed(unixSeconds: expiresAt - 10))
        let token = try exchangeAssertion(try assertionRequest(exchange), exchange: exchange).get()
        #expect(!token.token.isEmpty)
        exchange.pool.shutdown()
    }

    @Test("an assertion whose challenge expires between its opening and the consume is refused, the challenge not consumed")
    func challengeExpiresBeforeConsume() throws {
        let expiresAt = Self.mintedAt + 300
        // Opening the challenge reads the second before its expiry; the reads after verification reach past it
        // before the consume. The store's clock still says live, so only the service's second check can refuse it.
        let exchange = try exchange(
            clock: TickingTime(startingAt: expiresAt - 1).source, storeClock: .fixed(unixSeconds: expiresAt - 10))
        let request = try assertionRequest(exchange)
        let result = exchangeAssertion(request, exchange: exchange)
        #expect(throws: GRPCStatus.self) { try result.get() }
        if case .failure(let status) = result { #expect(status.code == .permissionDenied) }
        #expect(exchange.failures.value([Self.appID, "app_attest", ChallengeError.expired.reason]) == 1)
        let opened = try exchange.challenges.open(request.challenge, appID: Self.appID, now: expiresAt - 10)
        #expect(try exchange.store.consumeChallenge(opened.nonce, expiresAt: opened.expiresAt) == true)
        exchange.pool.shutdown()
    }
}
