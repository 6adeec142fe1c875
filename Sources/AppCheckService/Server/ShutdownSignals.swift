import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT as events: both begin a graceful shutdown. The signals are ignored at the process level and
/// observed through Dispatch sources, so the handler runs as ordinary code on a queue, not in a signal context.
///
/// `@unchecked Sendable`: the sources are created in `init` and only cancelled in `deinit`; Dispatch serialises
/// their handlers on the private queue.
final class ShutdownSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(onSignal: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "attestd.signals")
        sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { onSignal(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
