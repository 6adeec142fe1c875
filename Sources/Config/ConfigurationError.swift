/// Everything wrong with a configuration file, each problem naming the field it is about
/// (`projects[0].apps[1].teamId: must be 10 letters or digits`), so an operator can fix them all in one pass.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let problems: [String]

    public init(problems: [String]) { self.problems = problems }

    public var description: String { problems.joined(separator: "\n") }
}
