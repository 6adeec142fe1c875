import AppAttestSimulator

/// `attestd-sim init --dir DIR [--force]`: the simulated App Attest and receipt CAs, persisted in DIR.
enum InitCommand {
    static func run(_ arguments: ArraySlice<String>) throws(CommandError) -> JSONObject {
        let options = try CommandOptions(arguments, options: ["--dir"], flags: ["--force"])
        let directory = SimulatorDirectory(path: try options.required("--dir"))
        let created: Bool
        do {
            created = try directory.create(force: options.has("--force"))
        } catch {
            throw .failure(error.description)
        }
        return JSONObject([
            ("dir", .string(directory.path)),
            ("created", .bool(created)),
            ("appAttestRoot", .string(directory.appAttestRootPath)),
            ("receiptRoot", .string(directory.receiptRootPath)),
        ])
    }
}
