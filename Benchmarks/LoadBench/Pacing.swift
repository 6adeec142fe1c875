/// How a phase paces its requests.
enum Pacing: Sendable {
    /// Keep every stream slot busy: as many requests in flight as connections × streams allow.
    case closed
    /// Start requests at a fixed rate (per second, this worker's share), whatever the server does; latency counts
    /// from each request's scheduled start, so time spent waiting for a free stream is charged to the server.
    case open(ratePerSecond: Double)
}
