/// One HTTP rule of an RPC, as `google.api.http` writes it: `POST /v1/{app=projects/*/apps/*}:exchangeDebugToken`.
///
/// Supported templates: literal segments, at most one variable `{field=pattern}` whose pattern is literal and
/// `*` segments, more literal segments, and an optional `:verb`.
public struct RESTBinding: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP method (`GET`, `POST`).
    public let method: String
    /// The template as written.
    public let template: String
    /// Whether the request body (JSON, all fields: `body: "*"`) fills the request message.
    public let hasBody: Bool
    /// The request field the variable binds (`app`), or nil when the template has none.
    public let variableField: String?

    private let prefix: [String]
    private let pattern: [String]
    private let suffix: [String]
    private let verb: String?

    /// A binding for `method` and `template`; the template must be well formed (it is written in code).
    public init(_ method: String, _ template: String, hasBody: Bool = true) {
        self.method = method
        self.template = template
        self.hasBody = hasBody
        var path = Substring(template.dropFirst())
        var verb: String?
        if let colon = path.lastIndex(of: ":"), !path[colon...].contains("/"), !path[colon...].contains("}") {
            verb = String(path[path.index(after: colon)...])
            path = path[..<colon]
        }
        self.verb = verb
        if let open = path.firstIndex(of: "{"), let close = path.firstIndex(of: "}") {
            let variable = path[path.index(after: open)..<close]
            let equals = variable.firstIndex(of: "=")
            variableField = String(variable[..<(equals ?? variable.endIndex)])
            pattern = equals.map { variable[variable.index(after: $0)...].split(separator: "/").map(String.init) } ?? ["*"]
            prefix = path[..<open].split(separator: "/").map(String.init)
            suffix = path[path.index(after: close)...].split(separator: "/").map(String.init)
        } else {
            variableField = nil
            pattern = []
            prefix = path.split(separator: "/").map(String.init)
            suffix = []
        }
    }

    public var description: String { "\(method) \(template)" }

    /// How `path` fits this binding, leaving the HTTP method aside.
    func match(_ path: RESTPath) -> Fit {
        guard path.verb == verb, path.segments.count >= prefix.count + suffix.count,
              path.segments.starts(with: prefix), path.segments.reversed().starts(with: suffix.reversed()) else {
            return .none
        }
        let middle = path.segments[prefix.count..<(path.segments.count - suffix.count)]
        guard let variableField else { return middle.isEmpty ? .matched(nil) : .none }
        guard middle.count == pattern.count,
              zip(middle, pattern).allSatisfy({ $1 == "*" ? !$0.isEmpty : $0 == $1 }) else {
            return .badResource(field: variableField, pattern: pattern.joined(separator: "/"),
                                value: middle.joined(separator: "/"))
        }
        return .matched(PathParameter(field: variableField, value: middle.joined(separator: "/")))
    }

    enum Fit {
        case none
        case matched(PathParameter?)
        /// The verb and the literal parts fit but the variable's value does not have the pattern's shape.
        case badResource(field: String, pattern: String, value: String)
    }
}

/// A request field taken from the URL path (`app` = `projects/p/apps/1:2:ios:ab`).
public struct PathParameter: Hashable, Sendable {
    /// The proto name of the field.
    public let field: String
    public let value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }
}
