import AppAttest
import AppAttestSimulator
import Basics

/// `attestd-sim assert`: an assertion over SHA256(clientData) with a saved key, advancing its saved counter.
enum AssertCommand {
    static func run(_ arguments: ArraySlice<String>) throws(CommandError) -> JSONObject {
        let options = try CommandOptions(arguments, options: ["--dir", "--key-file", "--app-id", "--client-data", "--counter"])
        let directory = try options.required("--dir")
        let keyFile = try options.required("--key-file")
        let appID = try options.required("--app-id")
        let clientData = try options.base64("--client-data")
        let counter = try options.unsigned("--counter")

        let session = try SimulatorSession(directory: directory, appID: appID)
        let assertion = try session.assert(clientData: clientData, keyFile: keyFile, counter: counter)
        return JSONObject([
            ("assertion", .string(Base64.standard.encode(assertion.object))),
            ("counter", .integer(Int64(assertion.counter))),
        ])
    }
}
