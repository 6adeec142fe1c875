/// Why the simulator could not read or write its persisted CAs or keys.
public struct SimulatorFileError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable { case cannotRead, cannotWrite, malformed, notADirectory }
    private let code: Code
    /// The path concerned and the reason; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A file is missing or unreadable.
    public static let cannotRead = SimulatorFileError(.cannotRead)
    /// A file or directory could not be created or written.
    public static let cannotWrite = SimulatorFileError(.cannotWrite)
    /// A file was read but does not hold what the simulator wrote there (bad PEM, a key not matching its
    /// certificate, bad JSON).
    public static let malformed = SimulatorFileError(.malformed)
    /// The path exists and is not a directory.
    public static let notADirectory = SimulatorFileError(.notADirectory)

    func with(detail: String) -> SimulatorFileError { SimulatorFileError(code, detail) }

    public static func == (lhs: SimulatorFileError, rhs: SimulatorFileError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        switch code {
        case .cannotRead: "cannot read \(detail)"
        case .cannotWrite: "cannot write \(detail)"
        case .malformed: "malformed \(detail)"
        case .notADirectory: "\(detail) is not a directory"
        }
    }
}
