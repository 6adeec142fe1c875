import Observability
import Synchronization

/// What every loop and connection of one server shares: settings, the handler, the logger and the gauges.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let logger: Logger
    let openConnections = Atomic<Int>(0)
    let openStreams = Atomic<Int>(0)
    let isShuttingDown = Atomic<Bool>(false)
    /// The most unsent output any connection has held after a flush (a test hook for back-pressure).
    let peakBufferedOutputBytes = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
    }

    func notePendingOutput(_ bytes: Int) {
        var current = peakBufferedOutputBytes.load(ordering: .relaxed)
        while bytes > current {
            let (exchanged, original) = peakBufferedOutputBytes.compareExchange(
                expected: current, desired: bytes, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
