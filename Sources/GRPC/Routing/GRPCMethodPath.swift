/// The `:path` of a gRPC request: `/package.Service/Method`.
public struct GRPCMethodPath: Hashable, Sendable, CustomStringConvertible {
    /// The fully qualified service name (`google.firebase.appcheck.v1.TokenExchangeService`).
    public let service: String
    /// The method name (`GenerateAppAttestChallenge`).
    public let method: String

    public init(service: String, method: String) {
        self.service = service
        self.method = method
    }

    /// Parses a `:path`; nil unless it is `/` + service + `/` + method, both non-empty, with no query.
    public init?(_ path: some StringProtocol) {
        let utf8 = Substring(path).utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        let rest = utf8.dropFirst()
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let service = rest[..<slash]
        let method = rest[rest.index(after: slash)...]
        guard !service.isEmpty, !method.isEmpty,
              !method.contains(UInt8(ascii: "/")), !method.contains(UInt8(ascii: "?")) else { return nil }
        self.service = String(Substring(service))
        self.method = String(Substring(method))
    }

    /// The `:path` form, `/service/method`.
    public var description: String { "/\(service)/\(method)" }
}
