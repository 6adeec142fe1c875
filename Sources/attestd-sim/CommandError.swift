/// Why a command stopped: a usage mistake (exit 2) or a failure while doing the work (exit 1). Printed as one
/// line on stderr.
struct CommandError: Error, CustomStringConvertible {
    private enum Code { case usage, failure }
    private let code: Code
    let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A missing or malformed argument.
    static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
    /// Anything else: unreadable files, a server's refusal, an unreachable server.
    static func failure(_ message: String) -> CommandError { CommandError(.failure, message) }

    var exitStatus: Int32 {
        switch code {
        case .usage: 2
        case .failure: 1
        }
    }

    var description: String { message }
}
