import Basics
import Foundation
import Glibc

/// Wall time, this process's CPU time and context switches, and the Redis server's CPU time, at one moment.
struct StoreBenchSample {
    let wall: Double
    let cpu: Double
    let voluntarySwitches: Int
    let involuntarySwitches: Int
    let serverCPU: Double?

    init(serverPID: Int32?) {
        wall = Double(MonotonicClock.nanoseconds()) / 1e9
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        voluntarySwitches = usage.ru_nvcsw
        involuntarySwitches = usage.ru_nivcsw
        serverCPU = serverPID.flatMap(Self.processCPU)
    }

    /// User + system seconds of `pid`, from /proc.
    private static func processCPU(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// One phase's figures.
struct StoreBenchResult {
    let operations: Int
    let before: StoreBenchSample
    let after: StoreBenchSample
    let timing: SubmitterTiming

    func line(name: String) -> String {
        let wall = after.wall - before.wall
        let perOperation = { (seconds: Double) in String(format: "%.1f", seconds / Double(operations) * 1e6) }
        var text = "\(name): \(operations) in \(String(format: "%.2f", wall)) s = \(Int(Double(operations) / wall))/s; "
        text += "client CPU \(perOperation(after.cpu - before.cpu)) µs/op; "
        text += "switches \(String(format: "%.2f", Double(after.voluntarySwitches - before.voluntarySwitches) / Double(operations))) vol + "
        text += "\(String(format: "%.2f", Double(after.involuntarySwitches - before.involuntarySwitches) / Double(operations))) invol /op"
        if let start = before.serverCPU, let end = after.serverCPU {
            text += "; redis-server CPU \(perOperation(end - start)) µs/op"
        }
        text += "; submitters in store calls \(perOperation(Double(timing.inStoreNanoseconds) / 1e9)) µs/op"
        if timing.completions > 0 {
            text += ", completions on submitters \(timing.completionsOnSubmitters)/\(timing.completions)"
        }
        return text
    }
}
