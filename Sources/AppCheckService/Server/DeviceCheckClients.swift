import Apple
import Config
import Crypto
import Foundation
import GRPC
import Observability
import Synchronization
import VerifierPool

/// One DeviceCheck client per app that configures a developer key, built with the configuration (at start, and on
/// each reload) so that a missing or unreadable `.p8` file is refused at once instead of failing requests later;
/// and the threads the calls to Apple block on, shared by every configuration generation.
struct DeviceCheckClients: Sendable {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let productionURL = "https://api.devicecheck.apple.com"
    static let developmentURL = "https://api.development.devicecheck.apple.com"

    private let clients: [String: DeviceCheckClient]
    /// The Apple-call threads; nil when no app uses DeviceCheck.
    private let pool: VerifierPool?
    /// `attestd_apple_requests_total{app,endpoint,outcome}`, shared by every generation.
    let requests: CounterFamily
    /// The `endpoint` label of each DeviceCheck call.
    enum Endpoint {
        static let validateDeviceToken = "validate_device_token"
        static let queryTwoBits = "query_two_bits"
        static let updateTwoBits = "update_two_bits"
        static let all = [validateDeviceToken, queryTwoBits, updateTwoBits]
    }
    static let poolThreads = 16
    /// A call to Apple with less than this left of its deadline is not started: Apple does not answer that fast,
    /// so the call would only load Apple (and hold a thread) for an answer the caller is no longer waiting for.
    static let shortestCallNanos: UInt64 = 100_000_000

    init(projects: [Configuration.Project], apple: Configuration.AppleServices, threads: AppleCallThreads) throws {
        var clients: [String: DeviceCheckClient] = [:]
        for project in projects {
            for app in project.apps {
                guard let key = app.deviceCheck else { continue }
                guard let pem = try? String(contentsOfFile: key.privateKeyPath, encoding: .utf8) else {
                    throw Problem(description: "app \(app.appID): deviceCheck.privateKey \(key.privateKeyPath) cannot be read")
                }
                let privateKey: PrivateKey
                do {
                    privateKey = try PrivateKey(pem: pem)
                } catch {
                    throw Problem(description: "app \(app.appID): deviceCheck.privateKey \(key.privateKeyPath): \(error)")
                }
                guard privateKey.algorithm == .es256 else {
                    throw Problem(description: "app \(app.appID): deviceCheck.privateKey must be a P-256 .p8 key")
                }
                let baseURL = apple.deviceCheckURL ?? (app.environment == .production ? Self.productionURL : Self.developmentURL)
                clients[app.appID] = DeviceCheckClient(
                    baseURL: baseURL,
                    credentials: DeveloperCredentials(teamID: app.teamID, keyID: key.keyID, privateKey: privateKey),
                    options: AppleTransportOptions(caBundlePath: apple.caBundlePath))
            }
        }
        self.clients = clients
        self.pool = clients.isEmpty ? nil : threads.pool()
        self.requests = threads.requests
        requests.declare(CounterFamily.combinations(
            clients.keys.sorted(), Endpoint.all, ["ok"] + AppleError.Code.all.map(\.description)))
    }

    /// Runs `work` on the Apple-call threads, as ``ExchangeContext/onPool(_:reply:_:)`` does on the verifier's:
    /// UNAVAILABLE at once when the queue is full. The caller is answered by its deadline whatever Apple does:
    /// DEADLINE_EXCEEDED at the deadline if `work` has not answered by then (still queued behind calls to a
    /// hanging Apple, or waiting on Apple itself), and work whose call was so answered never starts, so it never
    /// calls Apple for a caller who has gone.
    func onPool<Response>(_ context: RPCContext, reply: RPCReply<Response>,
                          _ work: @escaping @Sendable () throws(GRPCStatus) -> Response) {
        guard let pool else {
            reply.fail(GRPCStatus(.failedPrecondition, "DeviceCheck is not configured."))
            return
        }
        let answer = DeadlineReply(reply)
        let expired = GRPCStatus(.deadlineExceeded, "Deadline exceeded while waiting to call Apple.")
        let accepted = pool.submit(.init(
            deadlineNanos: context.deadlineNanos.map { $0 &- min($0, Self.shortestCallNanos) }, mayBlock: true,
            run: { batch in
                guard !answer.isAnswered else { return }
                do throws(GRPCStatus) {
                    answer.complete(.success(try work()), joining: batch)
                } catch {
                    answer.complete(.failure(error), joining: batch)
                }
            },
            expire: { batch in answer.complete(.failure(expired), joining: batch) }), inlineOn: nil)
        guard accepted else {
            answer.complete(.failure(GRPCStatus(.unavailable, "Too many calls to Apple waiting; try again.")), joining: nil)
            return
        }
        if let deadline = context.deadlineNanos {
            answer.expire(at: deadline, with: GRPCStatus(.deadlineExceeded, "Deadline exceeded waiting for Apple."))
        }
    }

    /// The app's client; FAILED_PRECONDITION when the app has no DeviceCheck key (contract §5: provider not
    /// configured for the app).
    func client(for app: RegisteredApp) throws(GRPCStatus) -> DeviceCheckClient {
        guard let client = clients[app.appID] else {
            throw GRPCStatus(.failedPrecondition, "DeviceCheck is not configured for app \(app.appID).")
        }
        return client
    }
}

/// The threads calls to Apple block on, and their metric: long-lived, shared by every configuration generation. Calls
/// to Apple wait on the network for up to the caller's deadline, so they get threads of their own, so that a slow
/// Apple cannot starve the verifier pool the App Attest exchanges need. The threads start when a configuration first
/// gives an app a DeviceCheck key; their queue holds at most `apple.maxQueuedCalls`.
final class AppleCallThreads: Sendable {
    /// `attestd_apple_requests_total{app,endpoint,outcome}`: calls to Apple by their outcome (`ok`, or an
    /// ``AppleError/Code``), so that an operator sees Apple refusing our key, or being unavailable, at once.
    let requests = CounterFamily(
        name: "attestd_apple_requests_total",
        help: "Calls to Apple's DeviceCheck API, by app, endpoint and outcome.",
        labelNames: ["app", "endpoint", "outcome"])
    private let maxQueuedCalls: Int
    private let started = Mutex<VerifierPool?>(nil)

    init(maxQueuedCalls: Int) {
        self.maxQueuedCalls = maxQueuedCalls
    }

    /// The threads, started on first use.
    func pool() -> VerifierPool {
        started.withLock { pool in
            if let pool { return pool }
            let made = VerifierPool(threads: DeviceCheckClients.poolThreads, capacity: maxQueuedCalls, name: "apple-call")
            pool = made
            return made
        }
    }

    /// Lets queued calls finish and the threads exit.
    func shutdown() { started.withLock { $0 }?.shutdown() }
}
