import Glibc

/// POSTs to Apple with pooled libcurl handles, retrying 429, 5xx and transport failures with exponential backoff
/// and full jitter until the attempts or the caller's deadline run out.
final class AppleHTTPClient: Sendable {
    struct Response {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let options: AppleTransportOptions
    private let pool: CurlHandlePool

    init(options: AppleTransportOptions) {
        self.options = options
        self.pool = CurlHandlePool(capacity: options.pooledHandles)
    }

    /// The first answer that is not worth retrying; `AppleError.unavailable` when none came (Apple unreachable, or
    /// answering 429/5xx), `AppleError.deadlineExceeded` when the deadline ran out without an answer (each
    /// attempt's timeout is what is left of the deadline, so a hanging Apple costs the caller no more than it).
    /// `body` is called for every attempt, so that each carries a fresh transaction id and timestamp.
    func post(url: String, headers: [String], deadline: ContinuousClock.Instant, body: () -> [UInt8]) throws(AppleError) -> Response {
        var lastProblem = "no attempt made"
        var lastStatus: Int?
        for attempt in 0..<max(1, options.maxAttempts) {
            if attempt > 0 {
                let ceiling = min(options.maxBackoffMillis, options.baseBackoffMillis << min(attempt - 1, 20))
                let wait = Int.random(in: 0...max(0, ceiling))
                guard ContinuousClock.now + .milliseconds(wait) < deadline else { break }
                usleep(UInt32(wait) * 1000)
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            // Under a millisecond left is too little for any answer (libcurl's timeouts count whole milliseconds).
            guard remaining >= .milliseconds(1) else { break }
            // Rounded up: an attempt that times out has then used the whole deadline, and no futile one follows it.
            let remainingMillis = Int((remaining / .milliseconds(1)).rounded(.up))
            // The caller's deadline, not our own per-attempt limits, bounds this attempt.
            let deadlineBoundsAttempt = remainingMillis <= min(options.connectTimeoutMillis, options.requestTimeoutMillis)
            let bytes = body()
            let outcome = pool.withHandle { handle in
                handle.post(
                    url: url, headers: headers, body: bytes, caBundlePath: options.caBundlePath,
                    connectTimeoutMillis: min(options.connectTimeoutMillis, max(1, remainingMillis)),
                    timeoutMillis: min(options.requestTimeoutMillis, max(1, remainingMillis)))
            }
            switch outcome {
            case nil:
                throw AppleError(.unavailable, "cannot create a libcurl handle")
            case .failure(let failure)?:
                if failure.isSetup { throw AppleError(.unavailable, "libcurl refused an option: \(failure.description)") }
                if failure.isPermanent { throw AppleError(.unavailable, "cannot reach \(url): \(failure.description)") }
                // A timeout of an attempt the deadline bounded is the deadline running out. libcurl's timer may fire
                // a hair before ours reads the deadline: the call still ends at the deadline, not before it.
                if failure.isTimeout && deadlineBoundsAttempt {
                    let early = ContinuousClock.now.duration(to: deadline)
                    if early > .zero { usleep(UInt32(early / .microseconds(1)) + 1) }
                    throw AppleError(.deadlineExceeded, "deadline exceeded calling \(url): \(failure.description)")
                }
                lastProblem = "transport: \(failure.description)"
                lastStatus = nil
            case .success(let answer)?:
                let response = Response(status: answer.status, body: answer.body)
                guard Self.isRetryable(answer.status) else { return response }
                lastProblem = "Apple answered \(answer.status) \(response.text.prefix(200))"
                lastStatus = answer.status
            }
        }
        // Out of time with no answer from Apple on the last attempt: the caller's deadline, not Apple's refusal,
        // ended the call.
        if lastStatus == nil && ContinuousClock.now >= deadline {
            throw AppleError(.deadlineExceeded, "deadline exceeded calling \(url): \(lastProblem)")
        }
        throw AppleError(.unavailable, "gave up on \(url): \(lastProblem)", status: lastStatus)
    }

    static func isRetryable(_ status: Int) -> Bool { status == 429 || (500...599).contains(status) }
}
