import Foundation
import Observability
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT (both beginning a graceful shutdown) and SIGHUP (a configuration reload) as events.
///
/// The signals are blocked in every thread (`blockInThisProcess()`, called on the main thread before any other
/// thread exists, so all of them inherit the mask) and taken by one thread with `sigwait`. A signal that arrives
/// at any moment, even while the server is still starting, stays pending until that thread takes it: none is lost
/// and none falls back to the default action that kills the process.
public final class ProcessSignals: Sendable {
    private static let signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it creates later.
    public static func blockInThisProcess() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the thread that waits for the signals and calls `onSignal` for each, on that thread.
    init(onSignal: @escaping @Sendable (Int32) -> Void) {
        let thread = Thread {
            ThreadName.setCurrent("signals")
            var set = ProcessSignals.signalSet()
            while true {
                var number: Int32 = 0
                guard sigwait(&set, &number) == 0 else { continue }
                onSignal(number)
            }
        }
        thread.start()
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}
