import AppAttest
import Basics
import Crypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the offline commands share: options parsed from the command line, inputs read from files or stdin (raw
/// bytes or base64), and the exit codes (0 valid, 1 invalid, 2 usage or I/O error).
struct CommandInput {
    /// The exit status of an offline command.
    enum Exit: Int32 {
        case valid = 0
        case invalid = 1
        case usage = 2
    }

    /// A failure before any verification: bad usage or unreadable input (exit 2).
    struct UsageError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// Positional arguments, in order.
    private(set) var positional: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Splits `arguments` into positionals, `--name value` options (repeatable) and the `flagNames` that take no value.
    init(_ arguments: [String], flagNames: Set<String> = []) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    options[String(argument[..<equals]), default: []].append(String(argument[argument.index(after: equals)...]))
                } else if flagNames.contains(argument) {
                    flags.insert(argument)
                } else {
                    guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                    options[argument, default: []].append(arguments[index + 1])
                    index += 1
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func value(_ name: String) -> String? { options[name]?.last }

    func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError("missing \(name)") }
        return value
    }

    /// Fails on options the command does not know, so a typo never silently changes what is verified.
    func rejectUnknown(_ known: Set<String>) throws(UsageError) {
        if let unknown = (Set(options.keys).union(flags)).subtracting(known).sorted().first {
            throw UsageError("unknown option \(unknown)")
        }
    }

    /// The bytes a base64 option names (standard or URL-safe, padding optional).
    func base64(_ name: String) throws(UsageError) -> [UInt8]? {
        guard let text = value(name) else { return nil }
        guard let bytes = Base64.either.decode(text) else { throw UsageError("\(name) is not base64") }
        return bytes
    }

    /// The contents of `path` (`-` for stdin).
    static func readFile(_ path: String) throws(UsageError) -> [UInt8] {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw UsageError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += buffer[0..<count]
            // Inputs are a few kilobytes; anything past 16 MiB is not an App Attest object.
            guard bytes.count <= 16 << 20 else { throw UsageError("\(path) is larger than 16 MiB") }
        }
        return bytes
    }

    /// An object from `path`: raw CBOR/DER as is, or base64 text (either alphabet, surrounding whitespace and line
    /// breaks allowed) decoded.
    static func readObject(_ path: String) throws(UsageError) -> [UInt8] {
        let bytes = try readFile(path)
        guard !bytes.isEmpty else { throw UsageError("\(path) is empty") }
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0a, 0x0d]
        let text = bytes.filter { !whitespace.contains($0) }
        let isBase64Text = !text.isEmpty && text.allSatisfy { byte in
            (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                || [0x2b, 0x2f, 0x2d, 0x5f, 0x3d].contains(byte)
        }
        if isBase64Text, let decoded = Base64.either.decode(String(decoding: text, as: UTF8.self)) { return decoded }
        return bytes
    }

    /// Certificates from a PEM file (one or more `CERTIFICATE` blocks) or a single DER certificate.
    static func readCertificates(_ path: String) throws(UsageError) -> [[UInt8]] {
        let bytes = try readFile(path)
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") else { return [bytes] }
        var certificates: [[UInt8]] = []
        for block in text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst() {
            guard let end = block.firstRange(of: "-----END CERTIFICATE-----"),
                  let der = Base64.either.decode(block[..<end.lowerBound].filter { !$0.isWhitespace })
            else { throw UsageError("\(path) has a malformed PEM certificate") }
            certificates.append(der)
        }
        return certificates
    }

    /// Writes one line to stderr.
    static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

extension String {
    /// Splits at every occurrence of `separator` (Foundation-free).
    fileprivate func components(separatedBy separator: String) -> [String] {
        var parts: [String] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
