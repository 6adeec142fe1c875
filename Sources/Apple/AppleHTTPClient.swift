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

    /// The first answer that is not worth retrying; `AppleError.unavailable` when none came in time. `body` is
    /// called for every attempt, so that each carries a fresh transaction id and timestamp.
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
            guard remaining > .zero else { break }
            let remainingMillis = Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
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
                lastProblem = "transport: \(failure.description)"
                lastStatus = nil
            case .success(let answer)?:
                let response = Response(status: answer.status, body: answer.body)
                guard Self.isRetryable(answer.status) else { return response }
                lastProblem = "Apple answered \(answer.status) \(response.text.prefix(200))"
                lastStatus = answer.status
            }
        }
        throw AppleError(.unavailable, "gave up on \(url): \(lastProblem)", status: lastStatus)
    }

    static func isRetryable(_ status: Int) -> Bool { status == 429 || (500...599).contains(status) }
}
