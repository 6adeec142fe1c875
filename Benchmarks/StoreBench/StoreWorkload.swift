import Basics
import Batching
import Foundation
import Glibc
import Storage

/// The exchanges' calls, from `threads` threads at once: an attestation consumes a challenge and registers a key;
/// an assertion (optionally reads the key first, as the handler did before) consumes a challenge and advances the
/// key's counter. Each thread owns its keys, so every call succeeds and none waits on another's counter.
///
/// By default the writes are handed over as the verifier threads hand them (`StoreCompletion`, joining the thread's
/// `Batch`, flushed every `hold` writes); with `wait` each call is handed over without a batch and waited for.
final class StoreWorkload: @unchecked Sendable {
    enum Kind {
        case attestation
        case assertion(readFirst: Bool)
    }

    private let store: any StateStore
    private let threads: Int
    private let keysPerThread: Int
    private let wait: Bool
    private let hold: Int
    private let receipt: [UInt8]?
    private let workMicroseconds: Int
    private let maxOutstanding: Int
    private let completionWorkMicroseconds: Int
    /// Per thread, per key: the last counter used (each thread touches only its own row).
    private var counters: [[UInt32]]
    /// Phases run so far: part of the nonce seed, so no two phases make the same nonces.
    private var phases: UInt64 = 0

    init(store: any StateStore, threads: Int, keysPerThread: Int, wait: Bool, hold: Int, receiptBytes: Int,
         workMicroseconds: Int, completionWorkMicroseconds: Int, maxOutstanding: Int) {
        self.store = store
        self.threads = threads
        self.keysPerThread = keysPerThread
        self.wait = wait
        self.hold = hold
        receipt = receiptBytes > 0 ? [UInt8](repeating: 0x30, count: receiptBytes) : nil
        counters = Array(repeating: Array(repeating: 0, count: keysPerThread), count: threads)
        self.workMicroseconds = workMicroseconds
        self.maxOutstanding = maxOutstanding
        self.completionWorkMicroseconds = completionWorkMicroseconds
    }

    /// Runs `operations` exchanges split over the threads and measures them.
    func run(_ kind: Kind, operations: Int, serverPID: Int32?) throws -> StoreBenchResult {
        let perThread = max(1, operations / threads)
        let failures = LockedCounter()
        let timing = SubmitterTiming()
        let group = DispatchGroup()
        phases += 1
        let phase = phases
        let before = StoreBenchSample(serverPID: serverPID)
        for thread in 0..<threads {
            group.enter()
            let worker = Thread { [self] in
                defer { group.leave() }
                do {
                    try self.loop(kind, thread: thread, phase: phase, count: perThread, timing: timing)
                } catch {
                    failures.add(1, "\(error)")
                }
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        group.wait()
        let after = StoreBenchSample(serverPID: serverPID)
        if let failure = failures.firstFailure { throw StoreBenchError("\(failures.count) threads failed: \(failure)") }
        return StoreBenchResult(operations: perThread * threads, before: before, after: after, timing: timing)
    }

    private func loop(_ kind: Kind, thread: Int, phase: UInt64, count: Int, timing: SubmitterTiming) throws(StoreError) {
        SubmitterThread.markCurrent()
        let batch = wait ? nil : Batch()
        let answers = Outstanding()
        // Nanoseconds this thread spent inside the store's calls (handing writes over, flushing): time it did not
        // verify.
        var inStore: UInt64 = 0
        defer {
            batch?.flush()
            answers.waitForAll()
        }
        var nonce = [UInt8](repeating: 0, count: 32)
        // A cheap generator (splitmix64): the system one costs a syscall per call, which would swamp the memory store.
        var seed = (UInt64(thread + 1) << 48 | phase << 32 | UInt64(getpid())) &* 0x9E37_79B9_7F4A_7C15
        let expiresAt = TimeSource.system.unixSeconds() + 300
        for index in 0..<count {
            // Random nonces, as real challenges are: they land on random pages of the consumed-challenges index.
            for word in 0..<nonce.count / 8 {
                seed &+= 0x9E37_79B9_7F4A_7C15
                var mixed = (seed ^ (seed >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                mixed ^= mixed >> 31
                for byte in 0..<8 { nonce[word * 8 + byte] = UInt8(truncatingIfNeeded: mixed >> (byte * 8)) }
            }
            let key = index % keysPerThread
            let keyID = Self.keyID(thread: thread, key: key)
            let now = TimeSource.system.unixSeconds()
            SubmitterThread.spin(microseconds: workMicroseconds)
            let entered = MonotonicClock.nanoseconds()
            switch kind {
            case .attestation:
                let record = AttestedKeyRecord(
                    keyID: keyID, appID: "1:123456789012:ios:0123456789abcdef", environment: "development",
                    publicKey: [4] + keyID + keyID, firstSeen: now, lastSeen: now, receipt: receipt)
                answers.add()
                store.consumeChallenge(nonce, expiresAt: expiresAt, thenRegister: record, joining: batch) { result, _ in
                    timing.completed(onSubmitter: SubmitterThread.isCurrent)
                    SubmitterThread.spin(microseconds: self.completionWorkMicroseconds)
                    answers.done(result.map { $0 ? nil : "a fresh challenge read as consumed" })
                }
            case .assertion(let readFirst):
                if readFirst {
                    guard try store.attestedKey(keyID) != nil else { throw StoreError("bench: key not registered") }
                }
                counters[thread][key] += 1
                answers.add()
                store.consumeChallenge(
                    nonce, expiresAt: expiresAt, thenAdvance: keyID, to: counters[thread][key], now: now, joining: batch
                ) { result, _ in
                    timing.completed(onSubmitter: SubmitterThread.isCurrent)
                    SubmitterThread.spin(microseconds: self.completionWorkMicroseconds)
                    answers.done(result.map { $0 == .counter(.advanced) ? nil : "unexpected \($0)" })
                }
            }
            if wait {
                answers.waitForAll()
                if let failure = answers.firstFailure { throw StoreError("bench: \(failure)") }
            }
            if let batch, (index + 1) % hold == 0 { batch.flush() }
            inStore += MonotonicClock.nanoseconds() - entered
            // As a server's clients do, wait for answers once this many requests are in flight: a store that
            // answers on its own threads would otherwise be handed the whole phase at once.
            answers.waitUntil(below: maxOutstanding)
        }
        let entered = MonotonicClock.nanoseconds()
        batch?.flush()
        inStore += MonotonicClock.nanoseconds() - entered
        timing.add(inStoreNanoseconds: inStore)
        answers.waitForAll()
        if let failure = answers.firstFailure { throw StoreError("bench: \(failure)") }
    }

    private static func keyID(thread: Int, key: Int) -> [UInt8] {
        var id = [UInt8](repeating: 0xA5, count: 32)
        id[0] = UInt8(truncatingIfNeeded: thread)
        id[1] = UInt8(truncatingIfNeeded: key)
        id[2] = UInt8(truncatingIfNeeded: key >> 8)
        return id
    }
}

/// The writes of one thread still waiting for their completion, and the first that went wrong.
final class Outstanding: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = 0
    private(set) var firstFailure: String?

    func add() {
        condition.lock()
        pending += 1
        condition.unlock()
    }

    /// A completion's verdict: nil when the write did what the bench expected.
    func done(_ result: Result<String?, StoreError>) {
        condition.lock()
        defer { condition.unlock() }
        pending -= 1
        if firstFailure == nil {
            switch result {
            case .success(let failure?): firstFailure = failure
            case .failure(let error): firstFailure = error.description
            case .success(nil): break
            }
        }
        condition.broadcast()
    }

    func waitForAll() {
        waitUntil(below: 1)
    }

    /// Waits until fewer than `limit` writes are pending.
    func waitUntil(below limit: Int) {
        condition.lock()
        while pending >= limit { condition.wait() }
        condition.unlock()
    }
}

/// How long the submitting threads spent in the store's calls, and how many completions ran on them.
final class SubmitterTiming: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var inStoreNanoseconds: UInt64 = 0
    private(set) var completions = 0
    private(set) var completionsOnSubmitters = 0

    func add(inStoreNanoseconds nanoseconds: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        inStoreNanoseconds += nanoseconds
    }

    func completed(onSubmitter: Bool) {
        lock.lock()
        defer { lock.unlock() }
        completions += 1
        if onSubmitter { completionsOnSubmitters += 1 }
    }
}

/// Errors from the worker threads, gathered for the report.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var count = 0
    private(set) var firstFailure: String?

    func add(_ amount: Int, _ failure: String) {
        lock.lock()
        defer { lock.unlock() }
        count += amount
        if firstFailure == nil { firstFailure = failure }
    }
}
