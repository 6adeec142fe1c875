import Glibc

/// The files a run leaves in its report folder: `report.json` (everything measured), `latency.dat` and
/// `timeline.dat` and `load.dat` (gnuplot data) and `plot.gp` (`BenchPlot`: renders `bench.png`, a row of panels per
/// exchange).
enum ReportFiles {
    static func write(_ bench: Bench, to directory: String) throws(BenchError) {
        mkdir(directory, 0o755)
        try save(json(bench), to: "\(directory)/report.json")
        var latency = "# phase index, percentile, 1/(1-p), latency ms\n"
        var timeline = "# phase index, seconds from phase start, ok requests/s, slowest answer ms\n"
        for (index, report) in bench.reports.enumerated() {
            latency += "# \(report.name)\n"
            for percentile in [0.0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100] {
                let x = percentile >= 100 ? 1e5 : 1 / (1 - percentile / 100)
                let value = report.result.latency.value(atPercentile: percentile)
                latency += "\(index) \(percentile) \(x) \(Double(value) / 1e6)\n"
            }
            latency += "\n\n"
            timeline += "# \(report.name)\n"
            for (bin, count) in report.result.timeline.enumerated() {
                let slowest = bin < report.result.timelineSlowest.count ? report.result.timelineSlowest[bin] : 0
                timeline += "\(index) \(Double(bin) * PhaseResult.binSeconds) \(Double(count) / PhaseResult.binSeconds) \(Double(slowest) / 1e6)\n"
            }
            timeline += "\n\n"
        }
        try save(latency, to: "\(directory)/latency.dat")
        try save(timeline, to: "\(directory)/timeline.dat")
        try save(loadData(bench), to: "\(directory)/load.dat")
        try save(BenchPlot.script(bench), to: "\(directory)/plot.gp")
    }

    private static func save(_ text: String, to path: String) throws(BenchError) {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    private static func loadData(_ bench: Bench) -> String {
        var text = """
            # kind block; percent of the saturating rate, p50 ms, p99 ms, allowed p99 ms (3 x service time), \
            the latency floor's p99 ms at that load (NaN: not measured)\n
            """
        for (kind, sweep) in bench.sweeps {
            text += "# \(kind.name)s, service time \(sweep.serviceSeconds * 1e3) ms\n"
            for point in sweep.points {
                let floorP99 = bench.floors[kind]?.point(at: point.fraction).map { "\($0.p99Seconds * 1e3)" } ?? "NaN"
                text += "\(point.fraction * 100) \(point.p50Seconds * 1e3) \(point.p99Seconds * 1e3) "
                    + "\(sweep.serviceSeconds * LatencyUnderLoad.allowedMultiple * 1e3) \(floorP99)\n"
            }
            text += "\n\n"
        }
        return text
    }

    static func json(_ bench: Bench) -> String {
        var out = JSONOut()
        out.object {
            $0.field("label", bench.options.label)
            $0.field("framing", bench.options.framing.rawValue)
            $0.field("cores", bench.cores)
            $0.field("loadThreads", bench.options.threads)
            $0.field("devices", bench.deviceCount)
            $0.field("warmupSeconds", bench.options.warmup)
            $0.field("durationSeconds", bench.options.duration)
            $0.field("tokenAlgorithm", bench.tokenAlgorithm)
            $0.field("loadAverageAtStart", bench.loadAverage)
            if let idle = bench.idle {
                $0.key("idleConnections")
                $0.object {
                    $0.field("requested", idle.requested)
                    $0.field("opened", idle.opened)
                    $0.field("serverRSSBeforeBytes", idle.serverRSSBeforeBytes)
                    $0.field("serverRSSAfterBytes", idle.serverRSSAfterBytes)
                    $0.field("seconds", idle.seconds)
                    $0.field("quietSeconds", IdleConnectionsReport.quietSeconds)
                    if let answered = idle.answered { $0.field("firstRequestsAnswered", answered) }
                }
            }
            if let bound = bench.bound {
                $0.key("cryptoBound")
                $0.object {
                    $0.field("threads", bound.threads)
                    $0.field("p384VerifyPerSecond", bound.p384Verify)
                    $0.field("p256VerifyPerSecond", bound.p256Verify)
                    $0.field("rsa2048SignPerSecond", bound.rsa2048Sign)
                    $0.field("p256SignPerSecond", bound.p256Sign)
                    $0.field("ratesAre", "operations per CPU-second of each thread, summed over one thread per core")
                    $0.key("wallClockPerSecond")
                    $0.object { for (name, rate) in bound.wallClock.sorted(by: { $0.key < $1.key }) { $0.field(name, rate) } }
                }
            }
            $0.key("serviceTimeSeconds")
            $0.object {
                for (kind, seconds) in bench.serviceTime.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    $0.field(kind.name, seconds)
                }
            }
            $0.key("latencyUnderLoad")
            $0.object {
                for (kind, sweep) in bench.sweeps {
                    $0.key(kind.name)
                    $0.object { latencyUnderLoad(sweep, &$0) }
                }
            }
            $0.key("latencyFloor")
            $0.object {
                for (kind, floor) in bench.floors.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    $0.key(kind.name)
                    $0.object {
                        latencyUnderLoad(floor, &$0)
                        if let match = bench.floorsAtServerBusy[kind] {
                            $0.key("atServerBusy")
                            $0.object {
                                $0.field("serverCoresBusy", match.serverCoresBusy)
                                point(match.point, of: floor, &$0)
                            }
                        }
                    }
                }
            }
            $0.key("phases")
            $0.array {
                for report in bench.reports {
                    $0.object { phase(report, &$0) }
                }
            }
        }
        return out.text + "\n"
    }

    private static func latencyUnderLoad(_ sweep: LatencyUnderLoad, _ out: inout JSONOut) {
        out.field("serviceTimeMs", sweep.serviceSeconds * 1e3)
        out.field("allowedMultiple", LatencyUnderLoad.allowedMultiple)
        if let highest = sweep.highestMeeting { out.field("highestFractionMeeting", highest.fraction) }
        if let missing = sweep.lowestMissing { out.field("lowestFractionMissing", missing.fraction) }
        out.key("points")
        out.array {
            for measured in sweep.points {
                $0.object { point(measured, of: sweep, &$0) }
            }
        }
    }

    private static func point(_ point: LatencyUnderLoad.Point, of sweep: LatencyUnderLoad, _ out: inout JSONOut) {
        out.field("fraction", point.fraction)
        out.field("arrivalsPerSecond", point.arrivalsPerSecond)
        out.field("p50Ms", point.p50Seconds * 1e3)
        out.field("p99Ms", point.p99Seconds * 1e3)
        out.field("p99OverServiceTime", sweep.multiple(point))
        if let busy = point.coresBusy { out.field("coresBusy", busy) }
    }

    private static func phase(_ report: PhaseReport, _ out: inout JSONOut) {
        out.field("name", report.name)
        out.field("pacing", report.pacing)
        if let rate = report.targetRate { out.field("targetRatePerSecond", rate) }
        if let fraction = report.openFraction { out.field("openFraction", fraction) }
        out.field("connections", report.connections)
        out.field("streamsPerConnection", report.streams)
        out.field("measuredSeconds", report.result.measuredSeconds)
        out.field("okPerSecond", report.throughput)
        if let bound = report.bound { out.field("boundPerSecond", bound) }
        if let ratio = report.ratio { out.field("ratioToBound", ratio) }
        if let seconds = report.cpu.server { out.field("serverCPUSeconds", seconds) }
        if let seconds = report.cpu.bench { out.field("benchCPUSeconds", seconds) }
        if let seconds = report.otherCPUSeconds { out.field("otherProcessesCPUSeconds", seconds) }
        if let seconds = report.cpu.stolen { out.field("stolenCPUSeconds", seconds) }
        if let seconds = report.serverCPUSecondsPerRequest { out.field("serverCPUSecondsPerRequest", seconds) }
        if let seconds = report.cryptoCPUSecondsPerRequest { out.field("cryptoCPUSecondsPerRequest", seconds) }
        if let efficiency = report.cpuEfficiency { out.field("cpuEfficiency", efficiency) }
        if let switches = report.cpu.serverContextSwitches { out.field("serverContextSwitches", switches) }
        if let switches = report.serverContextSwitchesPerRequest { out.field("serverContextSwitchesPerRequest", switches) }
        if let waited = report.cpu.serverRunQueueWait { out.field("serverRunQueueWaitSeconds", waited) }
        if let waited = report.serverRunQueueWaitPerRequest { out.field("serverRunQueueWaitSecondsPerRequest", waited) }
        out.field("exhausted", report.result.exhausted)
        out.field("timedOut", report.result.timedOut)
        out.field("notSent", report.result.notSent)
        out.field("serverLost", report.result.serverLost)
        out.key("latencyMs")
        latency(report.result.latency, &out)
        out.key("timelineOkPerSecond")
        out.array { for count in report.result.timeline { $0.value(Double(count) / PhaseResult.binSeconds) } }
        out.key("timelineSlowestMs")
        out.array { for slowest in report.result.timelineSlowest { $0.value(Double(slowest) / 1e6) } }
        out.key("kinds")
        out.object {
            for kind in report.kinds {
                let stats = report.result.kinds[kind.rawValue]
                $0.key(kind.name)
                $0.object {
                    $0.field("ok", stats.ok)
                    $0.key("errors")
                    $0.object { for (status, count) in stats.errors.sorted(by: { $0.key < $1.key }) { $0.field(status, count) } }
                    $0.key("errorSamples")
                    $0.object { for (status, text) in stats.errorSamples.sorted(by: { $0.key < $1.key }) { $0.field(status, text) } }
                    $0.field("replaysSent", stats.replaysSent)
                    $0.field("replaysRefused", stats.replaysRefused)
                    $0.key("replaysNotRefused")
                    $0.object { for (status, count) in stats.replayOther.sorted(by: { $0.key < $1.key }) { $0.field(status, count) } }
                    $0.key("latencyMs")
                    latency(stats.latency, &$0)
                }
            }
        }
    }

    private static func latency(_ histogram: LatencyHistogram, _ out: inout JSONOut) {
        out.object {
            $0.field("count", Int(histogram.total))
            $0.field("mean", histogram.mean / 1e6)
            for (name, percentile) in TextReport.percentiles {
                $0.field(name, Double(histogram.value(atPercentile: percentile)) / 1e6)
            }
        }
    }
}

/// A minimal JSON writer for the report (keys in the order written).
struct JSONOut {
    private(set) var text = ""
    private var needsComma = false

    mutating func object(_ body: (inout JSONOut) -> Void) {
        separate()
        text += "{"
        needsComma = false
        body(&self)
        text += "}"
        needsComma = true
    }

    mutating func array(_ body: (inout JSONOut) -> Void) {
        separate()
        text += "["
        needsComma = false
        body(&self)
        text += "]"
        needsComma = true
    }

    mutating func key(_ name: String) {
        separate()
        text += quoted(name) + ":"
        needsComma = false
    }

    mutating func field(_ name: String, _ value: String) { key(name); separate(); text += quoted(value); needsComma = true }
    mutating func field(_ name: String, _ value: Int) { key(name); separate(); text += "\(value)"; needsComma = true }
    mutating func field(_ name: String, _ value: Bool) { key(name); separate(); text += "\(value)"; needsComma = true }
    mutating func field(_ name: String, _ number: Double) { key(name); value(number) }

    mutating func value(_ value: Double) {
        separate()
        text += value.isFinite ? "\(value)" : "null"
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { text += "," }
        needsComma = false
    }

    private func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20: result += "\\u00" + String(scalar.value, radix: 16).leftPad(2)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
