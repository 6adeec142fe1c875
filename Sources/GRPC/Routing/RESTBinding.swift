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
    public var variableField: String? { matcher.variableField }
    /// The custom verb (`exchangeDebugToken`), or nil.
    var verb: String? { matcher.verb }

    let matcher: Matcher

    /// A binding for `method` and `template`; the template must be well formed (it is written in code).
    public init(_ method: String, _ template: String, hasBody: Bool = true) {
        self.method = method
        self.template = template
        self.hasBody = hasBody
        self.matcher = Matcher(template)
    }

    public var description: String { "\(method) \(template)" }

    public static func == (lhs: RESTBinding, rhs: RESTBinding) -> Bool {
        lhs.method == rhs.method && lhs.template == rhs.template && lhs.hasBody == rhs.hasBody
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(template)
        hasher.combine(hasBody)
    }

    /// How a path fits a binding, leaving the HTTP method aside.
    enum Fit {
        case none
        case matched(PathParameter?)
        /// The verb and the literal parts fit but the variable's value does not have the pattern's shape.
        case badResource(field: String, pattern: String, value: String)
    }

    /// The parsed template; a class so that routing a request retains one reference per candidate binding.
    final class Matcher: Sendable {
        let prefix: [String]
        let pattern: [String]
        let suffix: [String]
        let verb: String?
        let variableField: String?

        init(_ template: String) {
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
                pattern = equals.map { variable[variable.index(after: $0)...].split(separator: "/").map(String.init) }
                    ?? ["*"]
                prefix = path[..<open].split(separator: "/").map(String.init)
                suffix = path[path.index(after: close)...].split(separator: "/").map(String.init)
            } else {
                variableField = nil
                pattern = []
                prefix = path.split(separator: "/").map(String.init)
                suffix = []
            }
        }

        func match(_ path: RESTPath) -> Fit {
            let segments = path.segments
            let middleCount = segments.count - prefix.count - suffix.count
            guard path.verb == verb, middleCount >= 0 else { return .none }
            for i in prefix.indices where segments[i] != prefix[i] { return .none }
            for i in suffix.indices where segments[prefix.count + middleCount + i] != suffix[i] { return .none }
            let middle = segments[prefix.count..<(prefix.count + middleCount)]
            guard let variableField else { return middle.isEmpty ? .matched(nil) : .none }
            var fits = middle.count == pattern.count
            if fits {
                for (i, segment) in middle.enumerated() {
                    let expected = pattern[i]
                    if expected == "*" ? segment.isEmpty : segment != expected {
                        fits = false
                        break
                    }
                }
            }
            guard fits else {
                // Only a custom verb names the method for sure; without one, another shape is another resource.
                guard verb != nil else { return .none }
                return .badResource(field: variableField, pattern: pattern.joined(separator: "/"),
                                    value: middle.joined(separator: "/"))
            }
            var value = ""
            value.reserveCapacity(middle.reduce(middle.count) { $0 + $1.utf8.count })
            for segment in middle {
                if !value.isEmpty { value.append("/") }
                value.append(segment)
            }
            return .matched(PathParameter(field: variableField, value: value))
        }
    }
}

/// A request field taken from the URL path (`app` = `projects/p/apps/1:2:ios:ab`).
public struct PathParameter: Hashable, Sendable {
    /// The proto name of the field.
    public let field: String
    /// The value, percent-decoded (`projects/p/apps/1:2:ios:ab`).
    public let value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }
}
