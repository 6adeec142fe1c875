/// One phase as reported: how it was run, what it measured, and its bound.
struct PhaseReport: Sendable {
    var name: String
    var kinds: [RequestKind]
    var pacing: String
    /// Open loop: the arrival rate asked for (requests/s).
    var targetRate: Double?
    /// Open loop: that rate as a fraction of the same kind's closed-loop rate in this run.
    var openFraction: Double?
    var connections: Int
    var streams: Int
    var result: PhaseResult
    /// Requests per second if only crypto cost anything (nil for challenges alone).
    var bound: Double?
    /// What the server, the bench and the machine used during the measured window (the server's parts only when
    /// its pid is known).
    var cpu = ProcessCPU.Usage()

    /// CPU seconds other processes (builds, say) took in the window.
    var otherCPUSeconds: Double? {
        guard let busy = cpu.machineBusy, let server = cpu.server, let bench = cpu.bench else { return nil }
        return max(0, busy - server - bench)
    }
    /// Cores the whole machine kept busy in the window, on average: the server, the bench and everything else.
    var coresBusy: Double? {
        guard result.measuredSeconds > 0, let server = cpu.server, let bench = cpu.bench else { return nil }
        return (server + bench + (otherCPUSeconds ?? 0)) / result.measuredSeconds
    }
    /// CPU seconds of crypto an average successful request of this phase needs (OpenSSL's rates).
    var cryptoCPUSecondsPerRequest: Double?

    var throughput: Double { result.measuredSeconds > 0 ? Double(result.ok) / result.measuredSeconds : 0 }
    var ratio: Double? { bound.map { throughput / $0 } }

    /// Server CPU seconds per successful request in the window.
    var serverCPUSecondsPerRequest: Double? {
        guard let server = cpu.server, result.ok > 0 else { return nil }
        return server / Double(result.ok)
    }

    /// Server context switches per successful request in the window.
    var serverContextSwitchesPerRequest: Double? {
        guard let switches = cpu.serverContextSwitches, result.ok > 0 else { return nil }
        return switches / Double(result.ok)
    }

    /// Seconds the server's threads waited for a core, per successful request.
    var serverRunQueueWaitPerRequest: Double? {
        guard let waited = cpu.serverRunQueueWait, result.ok > 0 else { return nil }
        return waited / Double(result.ok)
    }

    /// The share of the server's CPU time that was the crypto itself: the bound's ratio with other load on the
    /// machine taken out (1.0 would be a server that spends nothing beside OpenSSL).
    var cpuEfficiency: Double? {
        guard let crypto = cryptoCPUSecondsPerRequest, crypto > 0, let server = serverCPUSecondsPerRequest, server > 0 else { return nil }
        return crypto / server
    }
}

extension PhaseReport {
    /// This phase held to the bounds (and crypto cost per request) of `saturated`, the closed-loop phase of the same
    /// kind that ran just before it, whose bounds are the mean of measurements before and after it.
    func heldToBounds(of saturated: PhaseReport) -> PhaseReport {
        var report = self
        report.bound = saturated.bound
        report.cryptoCPUSecondsPerRequest = saturated.cryptoCPUSecondsPerRequest
        return report
    }
}
