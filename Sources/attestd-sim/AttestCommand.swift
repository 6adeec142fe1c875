import AppAttest
import AppAttestSimulator
import Basics

/// `attestd-sim attest`: a new key, saved to a key file, attested over SHA256(challenge).
enum AttestCommand {
    static func run(_ arguments: ArraySlice<String>) throws(CommandError) -> JSONObject {
        let options = try CommandOptions(arguments, options: [
            "--dir", "--key-file", "--app-id", "--environment", "--challenge", "--validation-category", "--bundle-version",
        ])
        let directory = try options.required("--dir")
        let keyFile = try options.required("--key-file")
        let appID = try options.required("--app-id")
        let environment = try SimulatorSession.environment(try options.required("--environment"))
        let challenge = try options.base64("--challenge")
        let category = try options.unsigned("--validation-category")
        let bundleVersion = options.value("--bundle-version")
        // iOS 27 writes the extensions map; without either option the device behaves like an older OS.
        let extensions = category == nil && bundleVersion == nil
            ? nil : SimulatedExtensions(validationCategory: category, bundleVersion: bundleVersion)

        let session = try SimulatorSession(directory: directory, appID: appID, environment: environment, extensions: extensions)
        let (key, attestation) = try session.attestNewKey(challenge: challenge, keyFile: keyFile)
        return JSONObject([
            ("keyId", .string(key.keyIDBase64)),
            ("attestation", .string(Base64.standard.encode(attestation))),
            ("publicKey", .string(Base64.standard.encode(key.publicKey))),
        ])
    }
}
