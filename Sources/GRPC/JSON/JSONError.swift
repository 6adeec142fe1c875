/// Why a JSON text was refused, and where.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of refusal; compare errors by it.
    public struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable { case syntax, invalidUTF8, tooLarge, tooDeep }
        private let base: Base

        /// The text does not follow RFC 8259's grammar.
        public static let syntax = Code(base: .syntax)
        /// A string holds bytes that are not UTF-8, or a lone surrogate escape.
        public static let invalidUTF8 = Code(base: .invalidUTF8)
        /// The text is longer than the parser's byte limit.
        public static let tooLarge = Code(base: .tooLarge)
        /// Arrays and objects nest deeper than the parser's depth limit.
        public static let tooDeep = Code(base: .tooDeep)
    }

    /// The kind of refusal.
    public let code: Code
    /// What was wrong, for the client ("expected ',' or '}'").
    public let message: String
    /// The byte offset at which the parser stopped.
    public let offset: Int

    public init(_ code: Code, _ message: String, offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }

    public static func == (lhs: JSONError, rhs: JSONError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
