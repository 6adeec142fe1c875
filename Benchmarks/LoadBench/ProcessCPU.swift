import Basics
import Glibc

/// CPU time (user + system) a process has used, from /proc: how much of the machine the server and the bench
/// each took during a phase, whatever else was running.
enum ProcessCPU {
    /// The counters a phase reports, read at one moment.
    struct Sample: Sendable {
        /// CLOCK_MONOTONIC nanoseconds halfway through the reading.
        var at: UInt64
        var server: Double?
        var serverContextSwitches: Double?
        var serverRunQueueWait: Double?
        var bench: Double?
        var machine: (busy: Double, steal: Double)?

        static func take(serverPID: Int32?) -> Sample {
            let started = MonotonicClock.nanoseconds()
            var sample = Sample(
                at: 0, server: serverPID.flatMap { seconds(pid: $0) },
                serverContextSwitches: serverPID.flatMap { contextSwitches(pid: $0) },
                serverRunQueueWait: serverPID.flatMap { runQueueWait(pid: $0) }, bench: seconds(pid: nil),
                machine: ProcessCPU.machine())
            sample.at = started + (MonotonicClock.nanoseconds() - started) / 2
            return sample
        }

        /// What the counters did from `before` to this sample, scaled to a `window` that the two samples span
        /// (with a little before it): as if read at the window's edges, at the rate they ran between the samples.
        /// A span shorter than the window (a phase that ended early) is not scaled up.
        func usage(since before: Sample, window: UInt64) -> Usage {
            let scale = at > before.at ? min(1, Double(window) / Double(at - before.at)) : 1
            func counted(_ first: Double?, _ last: Double?) -> Double? {
                guard let first, let last else { return nil }
                return (last - first) * scale
            }
            return Usage(
                server: counted(before.server, server), bench: counted(before.bench, bench),
                machineBusy: counted(before.machine?.busy, machine?.busy), stolen: counted(before.machine?.steal, machine?.steal),
                serverContextSwitches: counted(before.serverContextSwitches, serverContextSwitches),
                serverRunQueueWait: counted(before.serverRunQueueWait, serverRunQueueWait))
        }
    }

    /// What was counted over a measured window (nil where /proc could not tell).
    struct Usage: Sendable, Equatable {
        /// CPU seconds the server and the bench used.
        var server: Double?
        var bench: Double?
        /// CPU seconds the whole machine was busy (server, bench and everything else), and stolen.
        var machineBusy: Double?
        var stolen: Double?
        /// Context switches of the server's threads.
        var serverContextSwitches: Double?
        /// Seconds the server's threads spent runnable but waiting for a core.
        var serverRunQueueWait: Double?
    }

    /// Seconds of CPU used so far by `pid` (nil: this process), or nil if /proc cannot tell.
    static func seconds(pid: Int32?) -> Double? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1024)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The command name may hold spaces: fields are counted after its closing parenthesis (field 3 first).
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
    static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// CPU seconds the whole machine has spent busy (all cores, everything but idle and iowait), and stolen by a
    /// hypervisor, from /proc/stat: what else ran beside the server and the bench.
    static func machine() -> (busy: Double, steal: Double)? {
        guard let file = fopen("/proc/stat", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: " ").dropFirst().compactMap { Double($0.filter { !$0.isWhitespace }) }
        guard fields.count >= 8 else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        // user nice system idle iowait irq softirq steal
        let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
        return (busy / ticks, fields[7] / ticks)
    }

    /// Context switches (voluntary and not) so far by the threads of `pid` that are alive now, from
    /// /proc/PID/task/*/status: each hand-off between an event loop and a pool thread that finds the other asleep
    /// costs one, so their count per request shows how much of the server's CPU goes to waking threads.
    static func contextSwitches(pid: Int32) -> Double? {
        sumOverThreads(pid: pid, file: "status") { text in
            guard text.hasPrefix("voluntary_ctxt_switches:") || text.hasPrefix("nonvoluntary_ctxt_switches:") else { return nil }
            return text.split(separator: ":").last.flatMap { Double($0.filter { !$0.isWhitespace }) }
        }
    }

    /// Seconds the threads of `pid` that are alive now have spent runnable but waiting for a core, from
    /// /proc/PID/task/*/schedstat (its second field, nanoseconds): time a request waits because other threads, of
    /// this process or any other, hold the cores.
    static func runQueueWait(pid: Int32) -> Double? {
        sumOverThreads(pid: pid, file: "schedstat") { text in
            let fields = text.split(separator: " ")
            guard fields.count >= 2, let nanoseconds = Double(fields[1]) else { return nil }
            return nanoseconds / 1e9
        }
    }

    /// The sum of `value` over every line of /proc/PID/task/*/FILE (lines it returns nil for count nothing).
    private static func sumOverThreads(pid: Int32, file name: String, _ value: (String) -> Double?) -> Double? {
        guard let directory = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(directory) }
        var total = 0.0
        while let entry = readdir(directory) {
            let thread = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let first = thread.utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"),
                  let file = fopen("/proc/\(pid)/task/\(thread)/\(name)", "r")
            else { continue }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                total += value(text) ?? 0
            }
        }
        return total
    }
}
