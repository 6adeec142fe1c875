import Testing
@testable import attestd_bench

@Suite("PhaseWorkload")
struct PhaseWorkloadTests {
    private func lane(_ lane: Int, _ count: Int) -> [Job] {
        (0..<count).map { Job(kind: .assertion, body: [UInt8(lane), UInt8($0)], lane: lane) }
    }

    private let ok = Outcome(httpStatus: 200, grpcStatus: 0)

    @Test("a key lane has one assertion out at a time, sent in counter order")
    func laneWaitsForItsCompletion() {
        let workload = PhaseWorkload(challenge: nil, attestations: [], lanes: [lane(0, 3)], pattern: [.assertion], replayEvery: 0)
        let first = workload.next()
        #expect(first?.body == [0, 0])
        #expect(workload.next() == nil, "the lane is busy until its first assertion completes")
        workload.completed(first!, ok: true, outcome: ok)
        #expect(workload.next()?.body == [0, 1])
    }

    @Test("lanes are used oldest idle first, and the workload is exhausted when all are spent")
    func lanesRotate() {
        let workload = PhaseWorkload(challenge: nil, attestations: [], lanes: [lane(0, 1), lane(1, 1)],
                                     pattern: [.assertion], replayEvery: 0)
        let a = workload.next()
        let b = workload.next()
        #expect(a?.lane == 0 && b?.lane == 1)
        workload.completed(a!, ok: true, outcome: ok)
        workload.completed(b!, ok: true, outcome: ok)
        #expect(workload.next() == nil)
        #expect(workload.isExhausted)
    }

    @Test("one in N successful exchanges is sent again as a replay, outside its lane")
    func replaysFollowSuccesses() {
        let attestations = (0..<4).map { Job(kind: .attestation, body: [UInt8($0)]) }
        let workload = PhaseWorkload(challenge: nil, attestations: attestations, lanes: [], pattern: [.attestation], replayEvery: 2)
        let first = workload.next()!
        workload.completed(first, ok: true, outcome: ok)
        let second = workload.next()!
        workload.completed(second, ok: true, outcome: ok)
        let replay = workload.next()
        #expect(replay?.isReplay == true)
        #expect(replay?.body == second.body)
        #expect(replay?.lane == -1)
        #expect(workload.next()?.isReplay == false)
    }

    @Test("failed exchanges and challenges are never replayed")
    func noReplayOfFailuresOrChallenges() {
        let challenge = Job(kind: .challenge, body: [9])
        let workload = PhaseWorkload(challenge: challenge, attestations: [Job(kind: .attestation, body: [1])], lanes: [],
                                     pattern: [.attestation, .challenge], replayEvery: 1)
        let attestation = workload.next()!
        workload.completed(attestation, ok: false, outcome: Outcome(httpStatus: 200, grpcStatus: 7))
        let next = workload.next()!
        #expect(next.kind == .challenge && !next.isReplay)
        workload.completed(next, ok: true, outcome: ok)
        #expect(workload.next()?.isReplay == false)
    }

    @Test("the mix follows its pattern, skipping kinds that ran out")
    func patternSkipsExhaustedKinds() {
        let workload = PhaseWorkload(challenge: Job(kind: .challenge, body: []),
                                     attestations: [Job(kind: .attestation, body: [])], lanes: [],
                                     pattern: [.attestation, .challenge, .challenge], replayEvery: 0)
        let kinds = (0..<5).compactMap { _ in workload.next()?.kind }
        #expect(kinds == [.attestation, .challenge, .challenge, .challenge, .challenge])
        #expect(!workload.isExhausted, "challenges never run out")
    }

    @Test("a batch keeps each outcome at its job's tag")
    func batchKeepsOutcomesByTag() {
        let batch = BatchWorkload(jobs: (0..<3).map { Job(kind: .challenge, body: [], tag: $0) })
        let jobs = [batch.next()!, batch.next()!, batch.next()!]
        #expect(batch.next() == nil && batch.isExhausted)
        for job in jobs.reversed() {
            batch.completed(job, ok: true, outcome: Outcome(httpStatus: 200 + job.tag, grpcStatus: 0))
        }
        #expect(batch.outcomes.map { $0?.httpStatus } == [200, 201, 202])
    }
}
