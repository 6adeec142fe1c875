import AppAttestSimulator
import AppleStandIn
import Crypto
import Foundation
import HTTP
import Observability
import TLS

/// attestd-apple-sim: a local stand-in for Apple's DeviceCheck and risk-metric servers.
let usage = """
    usage: attestd-apple-sim serve --environment development|production --developer-key TEAM:KEYID:PUBLIC.pem
                  [--developer-key ...] [--host 127.0.0.1] [--port 0] [--tls-cert CERT.pem --tls-key KEY.pem]
                  [--state FILE.json] [--fail STATUS:COUNT] [--receipt-ca DIR] [--risk-metric N]
                  [--receipt-not-before SECONDS]
           attestd-apple-sim token --environment development|production --device ID [--expired]

    serve prints "listening on port N" once it accepts connections; POST /sim/faults {"status":503,"count":2}
    scripts failures at run time ({"status":503} without count: every request; {"clear":true} resets);
    {"delayMillis":5000} answers requests that much later (a hanging Apple; "count" as for a status).
    GET /sim/requests answers {"count":N}: the requests that reached Apple's endpoints so far.
    --receipt-ca: an attestd-sim init directory; attestationData then refreshes receipts its CA signed (else 404).
    --receipt-not-before: a new receipt may be refreshed this long after it was made (default 86400, Apple's day).
    POST /sim/receipts {"answer":"normal"|"notModified"|"noData"|"badSignature","riskMetric":N,"notBeforeSeconds":N}
    changes how attestationData answers at run time.
    token prints a device token the stand-in recognises.

    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("attestd-apple-sim: \(message)\n".utf8))
    exit(status)
}

func options(_ arguments: ArraySlice<String>) -> [(String, String?)] {
    var result: [(String, String?)] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let name = arguments[index]
        guard name.hasPrefix("--") else { fail("unexpected argument \(name)") }
        if name == "--expired" {
            result.append((name, nil))
            index += 1
            continue
        }
        guard index + 1 < arguments.endIndex else { fail("\(name) needs a value") }
        result.append((name, arguments[index + 1]))
        index += 2
    }
    return result
}

func environment(_ value: String?) -> AppleEnvironment {
    guard let value, let environment = AppleEnvironment(rawValue: value) else {
        fail("--environment must be development or production")
    }
    return environment
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "token":
    let parsed = options(arguments.dropFirst())
    guard let device = parsed.first(where: { $0.0 == "--device" })?.1 else { fail("token needs --device") }
    let token = StandInDeviceToken(
        environment: environment(parsed.first { $0.0 == "--environment" }?.1), deviceID: device,
        isExpired: parsed.contains { $0.0 == "--expired" })
    print(token.base64)
case "serve":
    let parsed = options(arguments.dropFirst())
    func value(_ name: String) -> String? { parsed.last { $0.0 == name }?.1 }
    var keys: [DeveloperKey] = []
    for (name, value) in parsed where name == "--developer-key" {
        let parts = (value ?? "").split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { fail("--developer-key is TEAM:KEYID:PUBLIC.pem") }
        do {
            let pem = try String(contentsOfFile: parts[2], encoding: .utf8)
            keys.append(DeveloperKey(teamID: parts[0], keyID: parts[1], publicKey: try JWSPublicKey(pem: pem)))
        } catch {
            fail("cannot read developer key \(parts[2]): \(error)")
        }
    }
    guard !keys.isEmpty else { fail("serve needs at least one --developer-key") }
    var tls: TLSConfiguration?
    if let certificate = value("--tls-cert") {
        guard let key = value("--tls-key") else { fail("--tls-cert needs --tls-key") }
        tls = TLSConfiguration(certificatePath: certificate, privateKeyPath: key)
    }
    guard let port = Int(value("--port") ?? "0") else { fail("--port must be a number") }
    var configuration = AppleStandIn.Configuration(
        environment: environment(value("--environment")), developerKeys: keys, stateFilePath: value("--state"),
        listener: HTTPListener(host: value("--host") ?? "127.0.0.1", port: port, tls: tls))
    if let directory = value("--receipt-ca") {
        do {
            configuration.receiptCA = try SimulatedReceiptCA(directory: directory)
        } catch {
            fail("cannot read the receipt CA in \(directory): \(error)")
        }
    }
    if let metric = value("--risk-metric") {
        guard let number = Int(metric), number >= 0 else { fail("--risk-metric must be a number") }
        configuration.riskMetric = number
    }
    if let seconds = value("--receipt-not-before") {
        guard let number = Int64(seconds), number >= 0 else { fail("--receipt-not-before must be a number of seconds") }
        configuration.receiptNotBeforeSeconds = number
    }
    do {
        let standIn = try AppleStandIn(configuration)
        if let fault = value("--fail") {
            let parts = fault.split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2 else { fail("--fail is STATUS:COUNT") }
            standIn.faults.fail(status: parts[0], count: parts[1])
        }
        try standIn.start()
        // Written straight to the descriptor (not buffered) so a parent process sees it at once.
        FileHandle.standardOutput.write(Data("listening on port \(standIn.port)\n".utf8))
        while true { sleep(3600) }
    } catch {
        fail("cannot start: \(error)", status: 1)
    }
case "-h", "--help", "help":
    print(usage, terminator: "")
default:
    fail("unknown or missing command (see attestd-apple-sim --help)")
}
