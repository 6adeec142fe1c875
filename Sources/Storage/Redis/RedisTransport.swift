/// How a connection's bytes travel to Redis: plain TCP (`RedisSocket`) or TLS over it (`RedisTLSStream`).
/// Every call is bounded by a deadline, so the command timeout holds on both paths.
protocol RedisTransport: AnyObject {
    /// Writes all of `bytes`, waiting for the socket when it is full, until `deadline`.
    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure)
    /// Reads at least one byte into `buffer` and returns how many; the peer closing is `RedisFailure.closed`.
    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) -> Int
}
