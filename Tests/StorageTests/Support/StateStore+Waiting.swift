import Dispatch
import Storage
import Synchronization

/// The exchanges' writes, handed over with no batch and waited for: the tests that check what a write does, rather
/// than how it is batched, read as plain calls.
extension StateStore {
    func consumeToken(_ tokenID: String, expiresAt: Int64) throws(StoreError) -> Bool {
        try waited { consumeToken(tokenID, expiresAt: expiresAt, joining: nil, completion: $0) }
    }

    func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord) throws(StoreError) -> Bool {
        try waited { consumeChallenge(nonce, expiresAt: expiresAt, thenRegister: record, joining: nil, completion: $0) }
    }

    func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64
    ) throws(StoreError) -> ChallengeThenCounter {
        try waited { consumeChallenge(nonce, expiresAt: expiresAt, thenAdvance: keyID, to: counter, now: now, joining: nil, completion: $0) }
    }
}

/// Hands a completion to `handOver` and waits for its one outcome.
private func waited<Outcome: Sendable>(_ handOver: (@escaping StoreCompletion<Outcome>) -> Void) throws(StoreError) -> Outcome {
    let outcome = Mutex<Result<Outcome, StoreError>?>(nil)
    let answered = DispatchSemaphore(value: 0)
    handOver { result, _ in
        outcome.withLock { $0 = result }
        answered.signal()
    }
    answered.wait()
    return try outcome.withLock { $0 }!.get()
}
