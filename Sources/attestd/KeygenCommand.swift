import Crypto
import Tokens

/// `attestd keygen --out DIR [--signing rs256|es256] [--force]`: writes new key material for a node or a cluster
/// (token signing key, challenge MAC key, artifact sealing key, TLS session ticket key), owner-only, refusing to replace existing keys
/// unless `--force`.
enum KeygenCommand {
    static let usage = "usage: attestd keygen --out DIR [--signing rs256|es256] [--force]\n"

    /// Runs the command with the arguments after `keygen`; returns the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        var directory: String?
        var algorithm = SigningAlgorithm.rs256
        var overwrite = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--out":
                guard let value = remaining.popFirst() else { return fail("--out needs a directory") }
                directory = value
            case "--signing":
                guard let value = remaining.popFirst(), let chosen = SigningAlgorithm(rawValue: value.uppercased()) else {
                    return fail("--signing must be rs256 or es256")
                }
                algorithm = chosen
            case "--force":
                overwrite = true
            case "-h", "--help":
                FileHandleOutput.standardOutput(usage)
                return 0
            default:
                return fail("unknown argument \(argument)")
            }
        }
        guard let directory else { return fail("--out is required") }
        do {
            let paths = try Keygen.write(into: directory, signing: algorithm, overwrite: overwrite)
            for path in paths { FileHandleOutput.standardOutput("wrote \(path)\n") }
            return 0
        } catch {
            FileHandleOutput.standardError("attestd keygen: \(error)\n")
            return 1
        }
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandleOutput.standardError("attestd keygen: \(message)\n" + usage)
        return 2
    }
}
