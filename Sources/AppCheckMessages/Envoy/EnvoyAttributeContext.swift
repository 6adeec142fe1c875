import GRPC

/// `envoy.service.auth.v3.AttributeContext`, the part attestd reads: the HTTP request and the route's context
/// extensions (where an Envoy route can name its attestd route policy).
public struct EnvoyAttributeContext: Sendable {
    /// `request.http`: the downstream HTTP request.
    public var http: HttpRequest
    /// `context_extensions`: set per route in Envoy's ext_authz per-route configuration.
    public var contextExtensions: [String: String]

    public init(http: HttpRequest = HttpRequest(), contextExtensions: [String: String] = [:]) {
        self.http = http
        self.contextExtensions = contextExtensions
    }

    /// `envoy.service.auth.v3.AttributeContext.HttpRequest`.
    public struct HttpRequest: Sendable {
        /// `x-request-id` or equivalent.
        public var id: String
        public var method: String
        /// Lower-cased names; Envoy merges repeated headers. Envoy sends `header_map` instead when told to encode
        /// raw headers: both are read into this one dictionary.
        public var headers: [String: String]
        /// The request target as sent, query included.
        public var path: String
        public var host: String

        public init(id: String = "", method: String = "", headers: [String: String] = [:], path: String = "", host: String = "") {
            self.id = id
            self.method = method
            self.headers = headers
            self.path = path
            self.host = host
        }
    }
}

extension EnvoyAttributeContext: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.AttributeContext")

    init(reading message: MessageReader) throws(GRPCStatus) {
        http = try message.message(4, as: Request.self)?.http ?? HttpRequest()
        contextExtensions = try Self.map(message.messages(10, as: ContextExtensionsEntry.self).map { ($0.key, $0.value) })
    }

    func write(to message: MessageWriter) {
        message.message(4, Request(http: http))
        message.messages(10, contextExtensions.sorted { $0.key < $1.key }.map { ContextExtensionsEntry(key: $0.key, value: $0.value) })
    }

    /// A map from its entries; the last entry of a repeated key wins, as protobuf's map semantics say.
    static func map(_ entries: [(String, String)]) -> [String: String] {
        Dictionary(entries, uniquingKeysWith: { _, last in last })
    }

    /// `AttributeContext.Request`: only its `http` field.
    struct Request: CBackedMessage {
        static let descriptor = MessageDescriptor("envoy.service.auth.v3.AttributeContext.Request")
        var http: HttpRequest?

        init(http: HttpRequest?) { self.http = http }

        init(reading message: MessageReader) throws(GRPCStatus) {
            http = try message.message(2, as: HttpRequest.self)
        }

        func write(to message: MessageWriter) { message.message(2, http) }
    }

    struct ContextExtensionsEntry: CBackedMessage {
        static let descriptor = MessageDescriptor("envoy.service.auth.v3.AttributeContext.ContextExtensionsEntry")
        var key: String
        var value: String

        init(key: String, value: String) {
            self.key = key
            self.value = value
        }

        init(reading message: MessageReader) throws(GRPCStatus) {
            key = try message.string(1)
            value = try message.string(2)
        }

        func write(to message: MessageWriter) {
            message.string(1, key)
            message.string(2, value)
        }
    }
}

extension EnvoyAttributeContext.HttpRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.AttributeContext.HttpRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        id = try message.string(1)
        method = try message.string(2)
        var headers = try EnvoyAttributeContext.map(message.messages(3, as: HeadersEntry.self).map { ($0.key, $0.value) })
        // Raw headers carry their value as bytes; repeated names are joined as HTTP joins them.
        for header in try message.message(13, as: EnvoyHeaderMap.self)?.headers ?? [] {
            let value = header.value.isEmpty ? String(decoding: header.rawValue, as: UTF8.self) : header.value
            let name = header.key.lowercased()
            headers[name] = headers[name].map { $0 + "," + value } ?? value
        }
        self.headers = headers
        path = try message.string(4)
        host = try message.string(5)
    }

    func write(to message: MessageWriter) {
        message.string(1, id)
        message.string(2, method)
        message.messages(3, headers.sorted { $0.key < $1.key }.map { HeadersEntry(key: $0.key, value: $0.value) })
        message.string(4, path)
        message.string(5, host)
    }

    struct HeadersEntry: CBackedMessage {
        static let descriptor = MessageDescriptor("envoy.service.auth.v3.AttributeContext.HttpRequest.HeadersEntry")
        var key: String
        var value: String

        init(key: String, value: String) {
            self.key = key
            self.value = value
        }

        init(reading message: MessageReader) throws(GRPCStatus) {
            key = try message.string(1)
            value = try message.string(2)
        }

        func write(to message: MessageWriter) {
            message.string(1, key)
            message.string(2, value)
        }
    }
}
