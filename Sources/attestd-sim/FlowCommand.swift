import AppAttest
import AppAttestSimulator
import Basics
import Crypto

/// `attestd-sim flow`: the whole device flow against a running attestd, printed step by step: challenge,
/// attestation exchanged for an artifact and a token, then assertions each exchanged for a token.
enum FlowCommand {
    /// The flow's key, kept in the simulator directory so a person can look at it (or reuse it with `assert`).
    static let keyFileName = "flow-key.json"

    static func run(_ arguments: ArraySlice<String>) throws(CommandError) {
        let options = try CommandOptions(arguments, options: [
            "--url", "--project", "--app", "--app-id", "--environment", "--dir", "--assertions",
        ])
        let http = try HTTPClient(url: try options.required("--url"))
        let project = try options.required("--project")
        let app = try options.required("--app")
        let appID = try options.required("--app-id")
        let environment = try SimulatorSession.environment(try options.required("--environment"))
        let directory = try options.required("--dir")
        let assertions = try options.count("--assertions", default: 3)
        let keyFile = directory.hasSuffix("/") ? directory + keyFileName : directory + "/" + keyFileName

        let session = try SimulatorSession(directory: directory, appID: appID, environment: environment)
        let bundleID = appID.split(separator: ".", maxSplits: 1).last.map(String.init) ?? appID
        let client = AttestdClient(http: http, project: project, app: app, bundleID: bundleID)

        say("attestd-sim flow: a simulated \(environment.rawValue) device running \(appID)")
        say("  server \(http.url(client.appPath))")
        say("")

        say("1. challenge       POST …:generateAppAttestChallenge (no body)")
        let first = try client.generateChallenge()
        let challenge = try decode(first.challenge, "challenge")
        say("   challenge       \(first.challenge) (\(challenge.count) bytes, ttl \(first.ttl ?? "?"))")

        say("2. attestation     new key, attestKey(clientDataHash: SHA256(challenge))")
        let (key, attestation) = try session.attestNewKey(challenge: challenge, keyFile: keyFile)
        say("   key id          \(key.keyIDBase64) (saved to \(keyFile))")
        say("   attestation     \(attestation.count) bytes of CBOR: x5c (credential certificate, intermediate), receipt, authData")
        say("                   POST …:exchangeAppAttestAttestation {key_id, attestation_statement, challenge, limited_use}")
        let exchanged = try client.exchangeAttestation(keyID: key.keyID, attestation: attestation, challenge: challenge)
        let artifact = try decode(exchanged.artifact, "artifact")
        say("   artifact        \(abbreviated(exchanged.artifact)) (\(artifact.count) bytes, sealed by attestd)")
        guard let token = exchanged.appCheckToken else { throw .failure("the attestation reply carries no appCheckToken") }
        printToken(token, detailed: true)

        for index in stride(from: 1, through: assertions, by: 1) {
            say("\(index + 2). assertion \(index)/\(assertions)   new challenge, generateAssertion(clientDataHash: SHA256(artifact || challenge))")
            let reply = try client.generateChallenge()
            let challenge = try decode(reply.challenge, "challenge")
            let assertion = try session.assert(clientData: artifact + challenge, keyFile: keyFile)
            say("   challenge       \(reply.challenge)")
            say("   assertion       counter \(assertion.counter), \(assertion.object.count) bytes")
            say("                   POST …:exchangeAppAttestAssertion {artifact, challenge, assertion, limited_use}")
            printToken(try client.exchangeAssertion(artifact: artifact, challenge: challenge, assertion: assertion.object), detailed: false)
        }
        say("")
        say("ok: 1 attestation and \(assertions) assertion\(assertions == 1 ? "" : "s") exchanged for App Check tokens")
        say("   verify a token offline against \(http.url("/v1/jwks"))")
    }

    private static func printToken(_ token: AttestdClient.Token, detailed: Bool) {
        say("   token           \(abbreviated(token.token)) (ttl \(token.ttl ?? "?"))")
        for line in TokenSummary.lines(token.token, detailed: detailed) { say("                   \(line)") }
    }

    private static func decode(_ text: String, _ field: String) throws(CommandError) -> [UInt8] {
        guard let bytes = Base64.either.decode(text), !bytes.isEmpty else { throw .failure("the server's \(field) is not base64: \(text)") }
        return bytes
    }

    private static func abbreviated(_ text: String) -> String {
        text.count <= 48 ? text : "\(text.prefix(24))…\(text.suffix(16))"
    }

    private static func say(_ line: String) {
        writeOut(line + "\n", to: 1)
    }
}
