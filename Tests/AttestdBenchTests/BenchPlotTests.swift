import Foundation
import Testing
@testable import attestd_bench

@Suite("bench.png's gnuplot script")
struct BenchPlotTests {
    private func report(_ name: String, _ kinds: [RequestKind], connections: Int = 8, streams: Int = 16) -> PhaseReport {
        PhaseReport(name: name, kinds: kinds, pacing: "closed", targetRate: nil, connections: connections, streams: streams,
                    result: PhaseResult(), bound: nil)
    }

    /// The phases `make bench` runs with RS256 tokens, in their order.
    private var standardProfile: [PhaseReport] {
        var reports = [report("challenges", [.challenge])]
        for kind in [RequestKind.attestation, .assertion] {
            reports.append(report("\(kind.name)s", [kind]))
            reports.append(report("\(kind.name)s, one at a time", [kind], connections: 1, streams: 1))
            reports.append(report(Bench.openLoopName(kind, 0.1), [kind]))
            reports.append(report(Bench.openLoopName(kind, 0.25), [kind]))
        }
        reports.append(report("mixed 1:50:51", [.attestation, .assertion, .challenge]))
        return reports
    }

    /// Each `plot` command with its series, one string each.
    private func plots(_ script: String) -> [[String]] {
        script.split(separator: "\nplot ").dropFirst().map { command in
            // Series continue a line with ", \"; the command ends at the first line that does not.
            var series = String(command).components(separatedBy: ", \\\n     ")
            series[series.count - 1] = String(series[series.count - 1].prefix { $0 != "\n" })
            return series
        }
    }

    @Test("draws a row of three panels per exchange, each legend under five entries")
    func rowsPerExchange() {
        let script = BenchPlot.script(reports: standardProfile, swept: [.attestation, .assertion],
                                      floored: [.attestation, .assertion], title: "run", warmup: 1)
        #expect(script.contains("set multiplot layout 4,3"))
        let panels = plots(script)
        #expect(panels.count == 12)
        for series in panels {
            #expect(series.count < 5, "\(series)")
        }
        // The attestation row: its four phases by their index in latency.dat, named without the exchange.
        #expect(panels[3] == [
            "'latency.dat' index 1 using 3:4 with linespoints title \"closed loop, 8x16\"",
            "'latency.dat' index 2 using 3:4 with linespoints title \"one at a time\"",
            "'latency.dat' index 3 using 3:4 with linespoints title \"open loop at 10%\"",
            "'latency.dat' index 4 using 3:4 with linespoints title \"open loop at 25%\"",
        ])
        // Latency against load: the assertions' sweep is load.dat's second block, with the floor beside attestd.
        #expect(panels[7].count == 4)
        #expect(panels[7].allSatisfy { $0.hasPrefix("'load.dat' index 1 ") })
        #expect(panels[7].contains { $0.contains("title \"floor p99\"") })
        #expect(panels[11] == ["'timeline.dat' index 9 using 2:3 with lines title \"closed loop, 8x16\""])
    }

    @Test("says in words that an exchange had no open loop, and leaves out a floor that was not measured")
    func withoutSweepOrFloor() {
        let script = BenchPlot.script(reports: standardProfile, swept: [.attestation], floored: [], title: "run", warmup: 1)
        // Challenges, assertions and the mix have no sweep: their middle panel is a label.
        #expect(script.components(separatedBy: "no open-loop phase in this run").count - 1 == 3)
        let loadPanels = plots(script).filter { $0.first?.hasPrefix("'load.dat'") == true }
        #expect(loadPanels.count == 1)
        #expect(loadPanels[0].count == 3 && !loadPanels[0].contains { $0.contains("floor") })
    }
}
