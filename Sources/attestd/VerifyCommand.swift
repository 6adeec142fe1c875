import AppAttest
import Basics
import Crypto

/// `attestd verify attestation|assertion FILE …`: verifies one object offline, for people debugging a device.
///
/// Exit 0 when valid (details on stdout), 1 when invalid (one stderr line starting with the reason's name), 2 on
/// usage or I/O errors.
enum VerifyCommand {
    static let usage = """
        usage: attestd verify attestation FILE --app-id TEAM.bundle [--app-id …] --key-id B64
                 (--client-data-hash B64 | --challenge B64) [--environment production|development] [--at ISO8601]
                 [--trust-anchor PEM] [--receipt-trust-anchor PEM]
               attestd verify assertion FILE --app-id TEAM.bundle [--app-id …] --public-key PEMFILE
                 (--client-data-hash B64 | --client-data B64) --previous-counter N
        FILE is raw CBOR, base64 text (standard or URL-safe), or - for stdin.
        """

    static func run(_ arguments: [String]) -> Int32 {
        do throws(CommandInput.UsageError) {
            guard let kind = arguments.first else { throw CommandInput.UsageError("verify what?") }
            let input = try CommandInput(Array(arguments.dropFirst()))
            switch kind {
            case "attestation": return try attestation(input).rawValue
            case "assertion": return try assertion(input).rawValue
            default: throw CommandInput.UsageError("cannot verify \"\(kind)\": attestation or assertion")
            }
        } catch {
            CommandInput.printError("error: \(error.message)")
            CommandInput.printError(usage)
            return CommandInput.Exit.usage.rawValue
        }
    }

    private static func attestation(_ input: CommandInput) throws(CommandInput.UsageError) -> CommandInput.Exit {
        try input.rejectUnknown([
            "--app-id", "--key-id", "--client-data-hash", "--challenge", "--environment", "--at", "--trust-anchor",
            "--receipt-trust-anchor",
        ])
        let object = try CommandInput.readObject(try file(input))
        let appIDs = try self.appIDs(input)
        guard let keyID = try input.base64("--key-id") else { throw CommandInput.UsageError("missing --key-id") }
        let clientDataHash = try self.clientDataHash(input, rawOption: "--client-data-hash", hashedOption: "--challenge")
        let environmentName = input.value("--environment") ?? AppAttestEnvironment.production.rawValue
        guard let environment = AppAttestEnvironment(rawValue: environmentName) else {
            throw CommandInput.UsageError("--environment is production or development")
        }
        var time: Int64?
        if let text = input.value("--at") {
            guard let parsed = RFC3339.parse(text), parsed.isWrittenInUTC else {
                throw CommandInput.UsageError("--at is an ISO 8601 UTC time like 2026-04-21T18:13:12Z")
            }
            time = parsed.unixSeconds
        }
        var anchors = AppleRoots.appAttestationRootDER
        if let path = input.value("--trust-anchor") {
            anchors = try CommandInput.readCertificates(path)
            print("warning: trusting \(path) instead of Apple's App Attestation Root CA")
        }
        var receiptAnchors = AppleRoots.rootCAG3DER
        if let path = input.value("--receipt-trust-anchor") {
            receiptAnchors = try CommandInput.readCertificates(path)
            print("warning: trusting \(path) instead of Apple Root CA - G3 for the receipt")
        }

        let verifier = AttestationVerifier(
            trustAnchorsDER: anchors, receiptVerifier: ReceiptVerifier(trustAnchorsDER: receiptAnchors),
            cacheCapacity: 0)
        do {
            let result = try verifier.verify(
                attestationObject: object, keyID: keyID, clientDataHash: clientDataHash, appIDs: appIDs,
                environment: environment, at: time)
            print("valid attestation")
            print("app-id: \(result.appID.string)")
            print("environment: \(result.environment.rawValue)")
            print("key-id: \(Base64.standard.encode(result.keyID))")
            print("public-key: \(Base64.standard.encode(result.publicKey))")
            print("counter: \(result.counter)")
            print("receipt: \(describe(result.receipt))")
            print("validation-category: \(result.extensions.validationCategory.map(String.init) ?? "absent")")
            print("bundle-version: \(result.extensions.bundleVersion ?? "absent")")
            return .valid
        } catch {
            CommandInput.printError(error.description)
            return .invalid
        }
    }

    private static func assertion(_ input: CommandInput) throws(CommandInput.UsageError) -> CommandInput.Exit {
        try input.rejectUnknown(["--app-id", "--public-key", "--client-data-hash", "--client-data", "--previous-counter"])
        let object = try CommandInput.readObject(try file(input))
        let appIDs = try self.appIDs(input)
        let keyPath = try input.required("--public-key")
        let pem = String(decoding: try CommandInput.readFile(keyPath), as: UTF8.self)
        guard let key = try? PublicKey(pemEncoded: pem), key.curveName == "prime256v1", let point = key.ecPoint,
              point.count == 65
        else { throw CommandInput.UsageError("\(keyPath) is not a PEM P-256 public key") }
        let clientDataHash = try self.clientDataHash(input, rawOption: "--client-data-hash", hashedOption: "--client-data")
        guard let previous = UInt32(try input.required("--previous-counter")) else {
            throw CommandInput.UsageError("--previous-counter is an unsigned 32-bit number")
        }
        do {
            let result = try AssertionVerifier().verify(
                assertion: object, publicKey: point, clientDataHash: clientDataHash, appIDs: appIDs,
                previousCounter: previous)
            print("valid assertion")
            print("app-id: \(result.appID.string)")
            print("counter: \(result.counter)")
            print("validation-category: \(result.extensions.validationCategory.map(String.init) ?? "absent")")
            print("bundle-version: \(result.extensions.bundleVersion ?? "absent")")
            return .valid
        } catch {
            CommandInput.printError(error.description)
            return .invalid
        }
    }

    private static func file(_ input: CommandInput) throws(CommandInput.UsageError) -> String {
        guard input.positional.count == 1 else { throw CommandInput.UsageError("expected exactly one FILE") }
        return input.positional[0]
    }

    private static func appIDs(_ input: CommandInput) throws(CommandInput.UsageError) -> [AppID] {
        let texts = input.values("--app-id")
        guard !texts.isEmpty else { throw CommandInput.UsageError("missing --app-id") }
        var appIDs: [AppID] = []
        for text in texts {
            guard let appID = AppID(text) else { throw CommandInput.UsageError("--app-id \(text) is not TEAM.bundle") }
            appIDs.append(appID)
        }
        return appIDs
    }

    /// The clientDataHash given as is, or the SHA-256 of the data given: exactly one of the two options.
    private static func clientDataHash(
        _ input: CommandInput, rawOption: String, hashedOption: String
    ) throws(CommandInput.UsageError) -> [UInt8] {
        switch (try input.base64(rawOption), try input.base64(hashedOption)) {
        case (let hash?, nil): return hash
        case (nil, let data?): return SHA256.hash(data)
        default: throw CommandInput.UsageError("give exactly one of \(rawOption) and \(hashedOption)")
        }
    }

    private static func describe(_ outcome: ReceiptOutcome) -> String {
        switch outcome {
        case .missing: "missing"
        case .empty: "empty"
        case .unverifiable(let error): "unverifiable (\(error.description))"
        case .verified(let receipt):
            "verified (type \(receipt.type), created \(RFC3339.format(unixSeconds: receipt.creationTime))"
                + (receipt.riskMetric.map { ", risk metric \($0)" } ?? "") + ")"
        }
    }
}
