/// What one worker thread sends during a phase and what it learns from the answers.
protocol Workload: AnyObject {
    /// The next request, or nil when nothing can go out now (exhausted, or every key lane is busy).
    func next() -> Job?
    /// True once `next` will never return a job again.
    var isExhausted: Bool { get }
    /// Called for every finished request (on the worker's thread).
    func completed(_ job: Job, ok: Bool, outcome: Outcome)
}

/// A fixed list of setup requests; their outcomes are kept by `tag`.
final class BatchWorkload: Workload {
    private let jobs: [Job]
    private var cursor = 0
    private(set) var outcomes: [Outcome?]

    init(jobs: [Job]) {
        self.jobs = jobs
        outcomes = Array(repeating: nil, count: jobs.count)
    }

    var isExhausted: Bool { cursor == jobs.count }

    func next() -> Job? {
        guard cursor < jobs.count else { return nil }
        defer { cursor += 1 }
        return jobs[cursor]
    }

    func completed(_ job: Job, ok: Bool, outcome: Outcome) {
        outcomes[job.tag] = outcome
    }
}

/// The requests of one timed phase for one worker: challenges (unlimited, one body), precomputed attestations
/// (each usable once), and precomputed assertions in key lanes (each lane's assertions carry increasing counters,
/// so a lane has at most one request in flight), mixed by a repeating pattern; plus replays of a sample of the
/// requests that succeeded, which the server must refuse.
final class PhaseWorkload: Workload {
    private let challenge: Job?
    private var attestations: [Job]
    private var attestationCursor = 0
    private var lanes: [[Job]]
    private var laneCursors: [Int]
    /// Lanes with nothing in flight, oldest first.
    private var idleLanes: [Int]
    private var idleHead = 0
    private let pattern: [RequestKind]
    private var patternIndex = 0
    private let replayEvery: Int
    private var okSinceReplay = [Int](repeating: 0, count: RequestKind.allCases.count)
    private var replays: [Job] = []

    init(challenge: Job?, attestations: [Job], lanes: [[Job]], pattern: [RequestKind], replayEvery: Int) {
        self.challenge = challenge
        self.attestations = attestations
        self.lanes = lanes
        laneCursors = Array(repeating: 0, count: lanes.count)
        idleLanes = Array(lanes.indices)
        self.pattern = pattern
        self.replayEvery = replayEvery
    }

    var isExhausted: Bool {
        replays.isEmpty && pattern.allSatisfy { kind in
            switch kind {
            case .challenge: challenge == nil
            case .attestation: attestationCursor == attestations.count
            case .assertion: zip(laneCursors, lanes).allSatisfy { $0 == $1.count }
            }
        }
    }

    func next() -> Job? {
        if let replay = replays.popLast() { return replay }
        for _ in 0..<pattern.count {
            let kind = pattern[patternIndex]
            patternIndex = (patternIndex + 1) % pattern.count
            if let job = take(kind) { return job }
        }
        return nil
    }

    private func take(_ kind: RequestKind) -> Job? {
        switch kind {
        case .challenge:
            return challenge
        case .attestation:
            guard attestationCursor < attestations.count else { return nil }
            defer { attestationCursor += 1 }
            return attestations[attestationCursor]
        case .assertion:
            while idleHead < idleLanes.count {
                let lane = idleLanes[idleHead]
                idleHead += 1
                if idleHead > 4096 && idleHead * 2 > idleLanes.count {
                    idleLanes.removeFirst(idleHead)
                    idleHead = 0
                }
                if laneCursors[lane] < lanes[lane].count {
                    defer { laneCursors[lane] += 1 }
                    return lanes[lane][laneCursors[lane]]
                }
            }
            return nil
        }
    }

    func completed(_ job: Job, ok: Bool, outcome: Outcome) {
        if job.lane >= 0 && !job.isReplay { idleLanes.append(job.lane) }
        guard ok, !job.isReplay, job.kind != .challenge, replayEvery > 0 else { return }
        okSinceReplay[job.kind.rawValue] += 1
        if okSinceReplay[job.kind.rawValue] >= replayEvery {
            okSinceReplay[job.kind.rawValue] = 0
            var replay = job
            replay.isReplay = true
            replay.lane = -1
            replays.append(replay)
        }
    }
}
