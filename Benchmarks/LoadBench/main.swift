import Glibc

// attestd-bench: drives an attestd (or any server speaking the App Check contract) with simulated devices and
// reports throughput, latency and correctness beside the crypto bound measured in the same run.
do {
    let options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
    let bench = try Bench(options: options)
    if let path = options.writeRoots {
        try bench.fleet.writeRoots(to: path)
        Console.line("wrote the simulated App Attest root to \(path) (receipts: \(path).receipt.pem)")
    }
    try bench.waitForServer()
    if let path = options.serverPIDFile { bench.serverPID = IdleConnectionsReport.pid(fromFile: path) }
    let needsLanes = options.phases.contains("assertion") || options.phases.contains("mixed")
        || options.phases.contains("attestation")
    if needsLanes {
        try bench.prepareLanes()
        Console.line("devices: \(bench.deviceCount) attested keys, each assertion lane one of them")
    }
    Console.line("load average at start: \(bench.loadAverage) (\(bench.cores) cores)")
    bench.measureBound()
    if let bound = bench.bound { TextReport.printBound(bound, algorithm: bench.tokenAlgorithm) }
    try bench.runProfile()
    if options.idleConnections > 0 {
        if let pid = bench.serverPID {
            let firstRequest = options.idleAfterRequest ? bench.challengeRequest : nil
            let idle = IdleConnectionsReport.measure(count: options.idleConnections, host: options.host, port: options.port,
                                                     tls: bench.tls, serverPID: pid, firstRequest: firstRequest)
            bench.idle = idle
            TextReport.printIdle(idle)
        } else {
            Console.line("idle connections: skipped (no --server-pid-file, or it holds no process id)")
        }
    }
    TextReport.printTargets(bench)
    if let directory = options.reportDirectory {
        try ReportFiles.write(bench, to: directory)
        Console.line("report: \(directory)/report.json, plot script \(directory)/plot.gp")
    }
    let failures = bench.reports.reduce(0) { total, report in
        total + report.result.errorCount + report.result.kinds.reduce(0) { $0 + $1.replaysSent - $1.replaysRefused }
    }
    if failures > 0 {
        Console.line("FAILED: \(failures) errors or replays not refused")
        exit(1)
    }
} catch {
    Console.error("attestd-bench: \(error)")
    exit(2)
}
