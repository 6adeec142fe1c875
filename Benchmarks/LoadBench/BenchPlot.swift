/// `plot.gp`, the gnuplot script that draws `bench.png` from the run's `.dat` files: one row per exchange
/// (challenges, attestations, assertions, the mix), each with three panels: latency by percentile, latency against
/// offered load beside the latency floor, and successful requests over time. A row holds one exchange's phases only,
/// so each legend has a handful of entries.
enum BenchPlot {
    /// The phases of one exchange, in the order they ran, by their index in `latency.dat` and `timeline.dat`.
    private struct Row {
        var title: String
        var kinds: [RequestKind]
        var phases: [(index: Int, label: String)] = []
    }

    private static let key = "set key outside right top vertical samplen 2"

    static func script(_ bench: Bench) -> String {
        script(
            reports: bench.reports, swept: bench.sweeps.map(\.kind), floored: Set(bench.floors.keys),
            title: "attestd-bench: \(bench.options.label), \(bench.cores) cores, load average \(bench.loadAverage) at start",
            warmup: bench.options.warmup)
    }

    /// The script for `reports`, where `swept` are the exchanges with an open-loop sweep, in `load.dat`'s order, and
    /// `floored` those whose latency floor was measured.
    static func script(
        reports: [PhaseReport], swept: [RequestKind], floored: Set<RequestKind>, title: String, warmup: Double
    ) -> String {
        let rows = rows(reports)
        var text = """
            # gnuplot plot.gp (run in this folder) -> bench.png
            set terminal pngcairo size 2100,\(80 + 420 * max(1, rows.count)) noenhanced font ",10"
            set output 'bench.png'
            set multiplot layout \(max(1, rows.count)),3 title "\(quoted(title))"

            """
        for row in rows {
            let sweepIndex = row.kinds.count == 1 ? swept.firstIndex(of: row.kinds[0]) : nil
            text += percentilePanel(row)
            text += loadPanel(row, sweepIndex: sweepIndex, floor: sweepIndex.map { floored.contains(swept[$0]) } ?? false)
            text += timelinePanel(row, warmup: warmup)
        }
        return text + "unset multiplot\n"
    }

    /// The reports grouped by exchange: a phase with one kind joins that kind's row; the mix is a row of its own.
    private static func rows(_ reports: [PhaseReport]) -> [Row] {
        var rows: [Row] = []
        for (index, report) in reports.enumerated() {
            if rows.last?.kinds != report.kinds {
                let title = report.kinds.count == 1 ? "\(report.kinds[0].name)s" : report.name
                rows.append(Row(title: title, kinds: report.kinds))
            }
            let title = rows[rows.count - 1].title
            let label = report.name == title
                ? "closed loop, \(report.connections)x\(report.streams)"
                : report.name.hasPrefix(title + ", ") ? String(report.name.dropFirst(title.count + 2)) : report.name
            rows[rows.count - 1].phases.append((index, label))
        }
        return rows
    }

    private static func percentilePanel(_ row: Row) -> String {
        let series = row.phases.map { phase in
            "'latency.dat' index \(phase.index) using 3:4 with linespoints title \"\(quoted(phase.label))\""
        }
        return """
            reset
            set grid
            \(key)
            set title "\(quoted(row.title)): latency by percentile"
            set logscale xy
            set xtics ("p50" 2, "p90" 10, "p99" 100, "p99.9" 1000, "p99.99" 10000, "max" 100000)
            set ylabel "ms"
            plot \(series.joined(separator: ", \\\n     "))

            """
    }

    /// p50 and p99 at each open-loop load, the latency floor's p99 at the same loads, and the allowed p99 (3 x the
    /// service time). An exchange without an open loop says so in words: gnuplot will not plot nothing (a panel whose
    /// points are all undefined fails the whole picture).
    private static func loadPanel(_ row: Row, sweepIndex: Int?, floor: Bool) -> String {
        let heading = """
            reset
            set grid
            set title "\(quoted(row.title)): latency against offered load (floor: a server with only the crypto)"

            """
        guard let index = sweepIndex else {
            return heading + """
                unset xtics
                unset ytics
                set xrange [0:1]
                set yrange [0:1]
                set label 1 "closed loop only: no open-loop phase in this run" at graph 0.5, 0.5 center
                plot -1 notitle

                """
        }
        let attestd = "linecolor rgb \"#0060ad\""
        var series = [
            "'load.dat' index \(index) using 1:3 with linespoints \(attestd) linewidth 2 pointtype 7 title \"attestd p99\"",
            "'load.dat' index \(index) using 1:2 with linespoints \(attestd) dashtype 2 pointtype 6 title \"attestd p50\"",
        ]
        if floor {
            series.append("'load.dat' index \(index) using 1:5 with linespoints linecolor rgb \"#dd181f\" linewidth 2 pointtype 5 title \"floor p99\"")
        }
        series.append("'load.dat' index \(index) using 1:4 with lines linecolor rgb \"#808080\" dashtype 4 title \"3 x service time\"")
        return heading + """
            \(key)
            set logscale y
            set xrange [0:*]
            set offsets 0, 5, 0, 0
            set xlabel "arrivals, % of the saturating rate"
            set ylabel "ms"
            plot \(series.joined(separator: ", \\\n     "))

            """
    }

    private static func timelinePanel(_ row: Row, warmup: Double) -> String {
        let series = row.phases.map { phase in
            "'timeline.dat' index \(phase.index) using 2:3 with lines title \"\(quoted(phase.label))\""
        }
        return """
            reset
            set grid
            \(key)
            set title "\(quoted(row.title)): successful requests/s over time, \(warmup) s warm-up first"
            set logscale y
            set xlabel "seconds from phase start"
            set ylabel "requests/s"
            plot \(series.joined(separator: ", \\\n     "))

            """
    }

    /// Text inside a gnuplot double-quoted string.
    private static func quoted(_ text: String) -> String { text.replacing("\"", with: "'") }
}
