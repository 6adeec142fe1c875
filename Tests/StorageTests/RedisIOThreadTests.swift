import Batching
import Foundation
import Glibc
import Storage
import Synchronization
import Testing

/// Writes handed over with a completion, as the exchanges hand them: the store's own I/O threads send them, and no
/// submitting thread ever sends, waits or runs a completion. Against a real redis-server, plain and TLS.
@Suite("Redis store I/O threads")
struct RedisIOThreadTests {
    /// A redis-server, plain or TLS, and a configuration that reaches it (the certificates live as long as this).
    struct Setup {
        let server: RedisServer
        let configuration: RedisConfiguration
        let certificates: TestCertificates?

        init(tls: Bool, persistent: Bool = false, commandTimeoutMilliseconds: Int = 1_000) throws {
            let certificates = tls ? try TestCertificates() : nil
            server = try RedisServer(persistent: persistent, tls: certificates.map { certificates in
                RedisServer.TLS(certificate: certificates.server.certificate, key: certificates.server.key,
                                caFile: certificates.caFile)
            })
            configuration = RedisConfiguration(
                port: server.port, commandTimeoutMilliseconds: commandTimeoutMilliseconds, reconnectBackoffMilliseconds: 20,
                maxReconnectBackoffMilliseconds: 100,
                tls: certificates.map { RedisTLSConfiguration(caFilePath: $0.caFile) })
            self.certificates = certificates
        }
    }

    /// The outcomes of handed-over writes, by write, each with where its completion ran.
    final class Outcomes<Outcome: Sendable>: Sendable {
        struct Answer: Sendable {
            let outcome: Result<Outcome, StoreError>
            /// The completion ran on the thread that handed the write over.
            let onSubmitter: Bool
            let thread: String
            let at: ContinuousClock.Instant
        }

        private let answers = Mutex<[Int: [Answer]]>([:])
        private let count = Atomic<Int>(0)

        /// The completion for write `index`, handed over on `submitter`.
        func completion(_ index: Int, submitter: pthread_t) -> StoreCompletion<Outcome> {
            { outcome, _ in
                let answer = Answer(outcome: outcome, onSubmitter: pthread_equal(pthread_self(), submitter) != 0,
                                    thread: RedisIOThreadTests.threadName(), at: .now)
                self.answers.withLock { $0[index, default: []].append(answer) }
                self.count.add(1, ordering: .relaxed)
            }
        }

        /// Waits (at most `seconds`) until `expected` answers arrived; returns them.
        func wait(for expected: Int, seconds: Double = 30) -> [Int: [Answer]] {
            let deadline = Date().addingTimeInterval(seconds)
            while count.load(ordering: .relaxed) < expected && Date() < deadline { usleep(2_000) }
            return answers.withLock { $0 }
        }
    }

    var expiresAt: Int64 { Int64(Date().timeIntervalSince1970) + 300 }

    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func record(_ id: [UInt8]) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: id, appID: "1:1:ios:a", environment: "production", publicKey: [4, 1, 2],
                          firstSeen: 1_000, lastSeen: 1_000)
    }

    /// A nonce unique to a thread and index.
    static func nonce(_ thread: Int, _ index: Int, round: UInt8 = 0) -> [UInt8] {
        [round, UInt8(thread), UInt8(index & 0xFF), UInt8(index >> 8)]
    }

    @Test("answers each of many threads' handed-over writes exactly once, on redis-io threads, and refuses their replays",
          arguments: [false, true])
    func handedOver(tls: Bool) throws {
        let setup = try Setup(tls: tls)
        let store = RedisStateStore(setup.configuration)
        let threads = 8, perThread = 150
        for thread in 0..<threads { try store.registerKey(Self.record([UInt8(thread)])) }
        let expiresAt = self.expiresAt
        let outcomes = Outcomes<ChallengeThenCounter>()
        // Half the threads hold their writes back in a batch as the verifier threads do, half hand each over at once.
        _ = onThreads(threads) { thread in
            let batch = thread % 2 == 0 ? Batch() : nil
            for index in 0..<perThread {
                store.consumeChallenge(Self.nonce(thread, index), expiresAt: expiresAt, thenAdvance: [UInt8(thread)],
                                       to: UInt32(index + 1), now: 1_001,
                                       joining: batch, completion: outcomes.completion(thread * 1_000 + index, submitter: pthread_self()))
                if index % 8 == 7 { batch?.flush() }
            }
            batch?.flush()
            return 0
        }
        let answers = outcomes.wait(for: threads * perThread)
        #expect(answers.count == threads * perThread)
        #expect(answers.values.allSatisfy { $0.count == 1 })
        // One thread's counter writes to its key were stored in the order it handed them over: all advanced.
        #expect(answers.values.allSatisfy { $0.first.map { (try? $0.outcome.get()) == .counter(.advanced) } == true })
        #expect(answers.values.allSatisfy { $0.first?.onSubmitter == false })
        let ioThreads = Set(answers.values.compactMap { $0.first?.thread })
        #expect(ioThreads.isSubset(of: ["redis-io-0", "redis-io-1"]), "\(ioThreads)")
        #expect(try store.attestedKey([3])?.counter == UInt32(perThread))

        // The same challenges again: every one a replay, the counters untouched.
        let replays = Outcomes<ChallengeThenCounter>()
        _ = onThreads(threads) { thread in
            for index in 0..<perThread {
                store.consumeChallenge(Self.nonce(thread, index), expiresAt: expiresAt, thenAdvance: [UInt8(thread)],
                                       to: UInt32(perThread + 1 + index), now: 1_002,
                                       joining: nil, completion: replays.completion(thread * 1_000 + index, submitter: pthread_self()))
            }
            return 0
        }
        let replayed = replays.wait(for: threads * perThread)
        #expect(replayed.count == threads * perThread)
        #expect(replayed.values.allSatisfy { $0.count == 1 && (try? $0[0].outcome.get()) == .challengeReplayed })
        #expect(try store.attestedKey([3])?.counter == UInt32(perThread))
        store.close()
    }

    @Test("when Redis is killed mid-load every pending write fails within the command timeout, and succeeds once it is back",
          arguments: [false, true])
    func killedMidLoad(tls: Bool) throws {
        let timeout = 500
        let setup = try Setup(tls: tls, persistent: true, commandTimeoutMilliseconds: timeout)
        let store = RedisStateStore(setup.configuration)
        #expect(try store.consumeChallenge([9], expiresAt: expiresAt))
        let expiresAt = self.expiresAt
        let outcomes = Outcomes<Bool>()
        let submitted = Atomic<Int>(0)
        let killed = Mutex<ContinuousClock.Instant?>(nil)
        // Four threads hand writes over until well after the kill; the main thread kills Redis meanwhile.
        let load = Thread {
            _ = onThreads(4) { thread in
                var index = 0
                while true {
                    if let killedAt = killed.withLock({ $0 }), ContinuousClock.now - killedAt > .milliseconds(300) { break }
                    let number = submitted.add(1, ordering: .relaxed).newValue
                    store.consumeToken("t\(thread)-\(index)", expiresAt: expiresAt,
                                       joining: nil, completion: outcomes.completion(number, submitter: pthread_self()))
                    index += 1
                    if index % 64 == 0 { usleep(500) }
                }
                return 0
            }
        }
        load.start()
        while submitted.load(ordering: .relaxed) < 2_000 { usleep(1_000) }
        setup.server.stop()
        let killedAt = ContinuousClock.now
        killed.withLock { $0 = killedAt }
        while !load.isFinished { usleep(5_000) }
        let total = submitted.load(ordering: .relaxed)
        let answers = outcomes.wait(for: total)
        #expect(answers.count == total)
        #expect(answers.values.allSatisfy { $0.count == 1 })
        let failures = answers.values.compactMap { $0.first }.filter { (try? $0.outcome.get()) == nil }
        #expect(!failures.isEmpty)
        // Whatever was pending at the kill, or handed over after it, was answered within the command timeout of it
        // (with a margin for a loaded machine), never left hanging.
        let times: [ContinuousClock.Instant] = answers.values.compactMap { $0.first?.at }
        let latest = try #require(times.max())
        #expect(latest - killedAt < .milliseconds(timeout) + .milliseconds(300) + .seconds(1), "\(latest - killedAt)")
        #expect(answers.values.allSatisfy { $0.first?.onSubmitter == false })

        try setup.server.start()
        var recovered: Bool?
        for _ in 0..<200 where recovered == nil {
            recovered = try? store.consumeChallenge([10], expiresAt: expiresAt)
            if recovered == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(recovered == true)
        #expect(try !store.consumeChallenge([9], expiresAt: expiresAt))
        let after = Outcomes<Bool>()
        for index in 0..<100 {
            store.consumeToken("after-\(index)", expiresAt: expiresAt, joining: nil, completion: after.completion(index, submitter: pthread_self()))
        }
        #expect(after.wait(for: 100).values.allSatisfy { $0.count == 1 && (try? $0[0].outcome.get()) == true })
        store.close()
    }

    @Test("close answers every write already queued and refuses later ones with StoreError", arguments: [false, true])
    func closeWithWritesQueued(tls: Bool) throws {
        let setup = try Setup(tls: tls)
        let store = RedisStateStore(setup.configuration)
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        // The server holds its replies a while, so that writes are queued and in flight when the store closes.
        #expect(try setup.server.cli(["CLIENT", "PAUSE", "300", "WRITE"]) == "OK")
        let outcomes = Outcomes<Bool>()
        for index in 0..<1_000 {
            store.consumeToken("q\(index)", expiresAt: expiresAt, joining: nil, completion: outcomes.completion(index, submitter: pthread_self()))
        }
        store.close()
        // close() returned after its I/O threads finished: every write has been answered, exactly once.
        let answers = outcomes.wait(for: 1_000, seconds: 0)
        #expect(answers.count == 1_000)
        #expect(answers.values.allSatisfy { $0.count == 1 && $0[0].onSubmitter == false })
        let refused = Outcomes<Bool>()
        store.consumeToken("late", expiresAt: expiresAt, joining: nil, completion: refused.completion(0, submitter: pthread_self()))
        let late = refused.wait(for: 1, seconds: 5)[0]?.first
        #expect(late.map { (try? $0.outcome.get()) == nil } == true)
        #expect(throws: StoreError.self) { try store.consumeChallenge([2], expiresAt: expiresAt) }
    }
}
