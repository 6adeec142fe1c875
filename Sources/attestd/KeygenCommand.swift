import Basics
import Crypto
import Tokens

/// `attestd keygen --out DIR [--signing rs256|es256] [--force]`: writes new key material for a node or a cluster
/// (token signing key, challenge MAC key, artifact sealing key, TLS session ticket key), owner-only, refusing to replace existing keys
/// unless `--force`.
///
/// `attestd keygen --next-signing-key FILE [--publish-from TIME] [--signing rs256|es256] [--force]`: writes one token
/// signing key for a staged rotation and prints its `keys.tokenSigning` entry, published from TIME (RFC 3339; by
/// default the next whole minute an hour from now) and signing as soon as verifiers caching the JWKS have it.
enum KeygenCommand {
    static let usage = """
        usage: attestd keygen --out DIR [--signing rs256|es256] [--force]
               attestd keygen --next-signing-key FILE [--publish-from RFC3339] [--signing rs256|es256] [--force]

        """

    /// Runs the command with the arguments after `keygen`; returns the process exit status.
    static func run(_ arguments: [String]) -> Int32 {
        var directory: String?
        var nextSigningKey: String?
        var publishFrom: Int64?
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
            case "--next-signing-key":
                guard let value = remaining.popFirst() else { return fail("--next-signing-key needs a file") }
                nextSigningKey = value
            case "--publish-from":
                guard let value = remaining.popFirst(), let time = RFC3339.parse(value), time.second < 60 else {
                    return fail("--publish-from needs an RFC 3339 time such as 2026-07-01T00:00:00Z")
                }
                publishFrom = time.unixSeconds
            case "--force":
                overwrite = true
            case "-h", "--help":
                FileHandleOutput.standardOutput(usage)
                return 0
            default:
                return fail("unknown argument \(argument)")
            }
        }
        if let nextSigningKey {
            guard directory == nil else { return fail("--out and --next-signing-key are not used together") }
            return writeNextSigningKey(nextSigningKey, publishFrom: publishFrom, algorithm: algorithm, overwrite: overwrite)
        }
        guard publishFrom == nil else { return fail("--publish-from goes with --next-signing-key") }
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

    /// Writes the key and prints the entry that brings it in.
    private static func writeNextSigningKey(
        _ path: String, publishFrom: Int64?, algorithm: SigningAlgorithm, overwrite: Bool
    ) -> Int32 {
        // An hour from now, on a whole minute: time to roll the configuration out to every node before it counts.
        let now = TimeSource.system.unixSeconds()
        let start = publishFrom ?? ((now + 3_600 + 59) / 60 * 60)
        do {
            try Keygen.writeSigningKey(to: path, signing: algorithm, overwrite: overwrite)
        } catch {
            FileHandleOutput.standardError("attestd keygen: \(error)\n")
            return 1
        }
        FileHandleOutput.standardOutput("""
            wrote \(path)
            Add this entry to keys.tokenSigning, keeping the key that signs now, and have every node run the new
            configuration before publishFrom (a relative file is read from the configuration file's directory):
            \(Keygen.signingKeyEntry(path: path, publishFrom: start))

            """)
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandleOutput.standardError("attestd keygen: \(message)\n" + usage)
        return 2
    }
}
