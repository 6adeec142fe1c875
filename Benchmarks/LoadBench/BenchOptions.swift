import Glibc

/// The command line: `attestd-bench [--option value] ...` (see `usage`).
struct BenchOptions: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var framing = Framing.grpc
    /// TLS with ALPN h2 instead of h2c; the server's certificate checked against `caFile` (nil: the system's store)
    /// for `serverName` (nil: the host), unless `insecure`.
    var tls = false
    var caFile: String?
    var serverName: String?
    var insecure = false
    var projectNumber = "123456789012"
    var appID = "1:123456789012:ios:0123456789abcdef"
    var teamID = "DEVTEAM123"
    var bundleID = "dev.attestd.example"
    var environment = "development"
    var connections = 8
    var streams = 16
    var threads = 1
    var warmup = 1.0
    var duration = 3.0
    var phases = ["challenge", "attestation", "assertion", "mixed"]
    /// Open-loop phases at these fractions of each exchange's saturating rate, lowest first (empty: none).
    var openFractions = [0.5]
    /// One request at a time, for the single-request service time.
    var single = true
    /// The latency floor beside each open-loop sweep (`LatencyFloor`), and its seconds per measurement.
    var floor = true
    var floorSeconds = 2.0
    var replayEvery = 50
    var receipts = false
    var writeRoots: String?
    var waitSeconds = 30.0
    var reportDirectory: String?
    var boundSeconds = 0.5
    var label = ""
    var idleConnections = 0
    var idleAfterRequest = false
    var serverPIDFile: String?
    /// Attested keys the assertions are spread over; nil: twice the streams in flight, at least 64.
    var devices: Int?

    static let usage = """
        usage: attestd-bench [options]
          --host ADDR --port N          server (IPv4; h2c with prior knowledge unless --tls; default 127.0.0.1:8080)
          --tls                         TLS with ALPN h2; the certificate checked for --server-name, else the address
          --ca FILE                     trust these PEM certificates (default: the system's trust store)
          --server-name NAME            the name to send (SNI) and check the certificate against
          --insecure                    do not check the server's certificate
          --framing grpc|rest           request framing (default grpc)
          --project NUMBER --app-id ID --team TEAMID --bundle ID --environment development|production
                                        the app the server is configured with (default: config/dev.json's)
          --connections N --streams N   connections, and streams in flight per connection (default 8 x 16)
          --threads N                   load threads (default 1)
          --devices N                   attested keys (devices) the assertions are spread over (default and least:
                                        twice the streams in flight, at least 64); many keys, as a node serving
                                        many devices has, keep the server's cached keys out of the cores' caches
          --warmup S --duration S       seconds per phase (default 1 + 3)
          --phases LIST                 challenge,attestation,assertion,mixed (default all)
          --open-fraction F[,F...]      open loop at each F x the saturating rate (default 0.5; 0: none)
          --no-single                   skip the one-request-at-a-time service-time phases
          --no-floor                    skip the latency floor: the same loads on a loopback server that runs only
                                        the exchange's crypto, one thread per connection, and once more at the rate
                                        that keeps the cores as busy as the server did (what the machine allows;
                                        measured only when --host is a loopback address)
          --floor-seconds S             seconds per latency floor measurement, after 0.3 s untimed (default 2)
          --replay-every N              replay one in N successful exchanges; all must be refused (default 50)
          --receipts                    attestations carry signed receipts (trust FILE.receipt.pem for them)
          --write-roots FILE            write the simulated App Attest root as PEM to FILE (and FILE.receipt.pem)
          --wait S                      wait up to S seconds for the server to answer (default 30)
          --report DIR                  write report.json, gnuplot data and plot.gp to DIR
          --bound-seconds S             seconds per OpenSSL rate measurement (default 0.5)
          --idle-connections N          at the end, hold N idle connections and read the server's memory once they
                                        have been quiet 3 s
          --idle-after-request          each idle connection first exchanges one challenge
          --server-pid-file FILE        the server's process id (for its memory, read from /proc)
          --label TEXT                  free text recorded in the report (server version, load on the machine)
        """

    static func parse(_ arguments: [String]) throws(BenchError) -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        func value() throws(BenchError) -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func number(_ text: String) throws(BenchError) -> Double {
            guard let number = Double(text), number >= 0 else { throw BenchError("not a number: \(text)") }
            return number
        }
        // A sweep runs lowest load first, each load once; 0 alone means no open-loop phase. Above 1 the arrivals
        // outrun the server by design, which measures only the queue: refused.
        func fractions(_ text: String) throws(BenchError) -> [Double] {
            var list: [Double] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let fraction = try number(String(item))
                guard fraction <= 1 else { throw BenchError("--open-fraction \(item): at most 1 (the saturating rate)") }
                if fraction > 0 && !list.contains(fraction) { list.append(fraction) }
            }
            return list.sorted()
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--host": options.host = try value()
            case "--port": options.port = Int(try number(try value()))
            case "--tls": options.tls = true
            case "--ca": options.caFile = try value()
            case "--server-name": options.serverName = try value()
            case "--insecure": options.insecure = true
            case "--framing":
                guard let framing = Framing(rawValue: try value()) else { throw BenchError("--framing is grpc or rest") }
                options.framing = framing
            case "--project": options.projectNumber = try value()
            case "--app-id": options.appID = try value()
            case "--team": options.teamID = try value()
            case "--bundle": options.bundleID = try value()
            case "--environment": options.environment = try value()
            case "--connections": options.connections = max(1, Int(try number(try value())))
            case "--streams": options.streams = max(1, Int(try number(try value())))
            case "--threads": options.threads = max(1, Int(try number(try value())))
            case "--devices": options.devices = Int(try number(try value()))
            case "--warmup": options.warmup = try number(try value())
            case "--duration": options.duration = max(0.1, try number(try value()))
            case "--phases": options.phases = try value().split(separator: ",").map(String.init)
            case "--open-fraction": options.openFractions = try fractions(try value())
            case "--no-single": options.single = false
            case "--no-floor": options.floor = false
            case "--floor-seconds":
                options.floorSeconds = try number(try value())
                guard options.floorSeconds > 0 else { throw BenchError("--floor-seconds must be more than 0") }
            case "--replay-every": options.replayEvery = Int(try number(try value()))
            case "--receipts": options.receipts = true
            case "--write-roots": options.writeRoots = try value()
            case "--wait": options.waitSeconds = try number(try value())
            case "--report": options.reportDirectory = try value()
            case "--bound-seconds": options.boundSeconds = max(0.05, try number(try value()))
            case "--label": options.label = try value()
            case "--idle-connections": options.idleConnections = Int(try number(try value()))
            case "--idle-after-request": options.idleAfterRequest = true
            case "--server-pid-file": options.serverPIDFile = try value()
            case "--help", "-h":
                Console.line(usage)
                exit(0)
            default: throw BenchError("unknown option \(argument)\n\(usage)")
            }
            index += 1
        }
        for phase in options.phases where !["challenge", "attestation", "assertion", "mixed"].contains(phase) {
            throw BenchError("unknown phase \(phase)")
        }
        if !options.tls && (options.caFile != nil || options.serverName != nil || options.insecure) {
            throw BenchError("--ca, --server-name and --insecure need --tls")
        }
        options.threads = min(options.threads, options.connections)
        return options
    }
}
