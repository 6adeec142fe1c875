import AppAttest
import Basics

/// A subcommand's `--name value` options and bare `--flag`s, refusing anything it does not know so that a typo
/// never silently changes what the simulated device does.
struct CommandOptions {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    init(_ arguments: ArraySlice<String>, options known: Set<String>, flags knownFlags: Set<String> = []) throws(CommandError) {
        var rest = arguments
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            if knownFlags.contains(name), inline == nil {
                flags.insert(name)
            } else if known.contains(name) {
                guard let value = inline ?? rest.popFirst() else { throw .usage("\(name) needs a value") }
                values[name] = value
            } else if argument.hasPrefix("-") {
                throw .usage("unknown option \(name)")
            } else {
                throw .usage("unexpected argument \(argument)")
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ name: String) -> String? { values[name] }

    func required(_ name: String) throws(CommandError) -> String {
        guard let value = values[name], !value.isEmpty else { throw .usage("missing \(name)") }
        return value
    }

    /// The bytes of a base64 option (standard or URL-safe, padding optional).
    func base64(_ name: String) throws(CommandError) -> [UInt8] {
        guard let bytes = Base64.either.decode(try required(name)) else { throw .usage("\(name) is not base64") }
        return bytes
    }

    /// A non-negative integer option that fits in 32 bits, or nil when absent.
    func unsigned(_ name: String) throws(CommandError) -> UInt32? {
        guard let text = values[name] else { return nil }
        guard let number = UInt32(text) else { throw .usage("\(name) must be an integer from 0 to \(UInt32.max)") }
        return number
    }

    /// A positive integer option, or `defaultValue` when absent.
    func count(_ name: String, default defaultValue: Int) throws(CommandError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let number = Int(text), number >= 0, number <= 1000 else { throw .usage("\(name) must be an integer from 0 to 1000") }
        return number
    }
}
