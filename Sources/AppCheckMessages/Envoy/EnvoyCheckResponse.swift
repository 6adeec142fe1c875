import GRPC

/// `envoy.service.auth.v3.CheckResponse`: allow (status OK, with headers for the upstream request), deny (with
/// the HTTP answer the downstream client gets), or fail (no decision could be made: Envoy's `failure_mode_allow` and
/// `status_on_error` apply).
public struct EnvoyCheckResponse: ProtoMessage, Sendable {
    /// `google.rpc.Status`: code 0 allows the request; any other code denies it.
    public var statusCode: Int32
    public var statusMessage: String
    /// Set when denied. `denied`, `ok` and `error` are the `http_response` oneof: only the first set, in this order,
    /// is sent.
    public var denied: Denied?
    /// Set when allowed.
    public var ok: OK?
    /// Set when no decision could be made: a `DeniedHttpResponse` in the oneof's `error_response`, as upstream.
    public var error: Denied?
    /// `dynamic_metadata`: what Envoy keeps under the filter's name for access logs and later filters.
    public var dynamicMetadata: ProtoStruct

    public init(statusCode: Int32 = 0, statusMessage: String = "", denied: Denied? = nil, ok: OK? = nil,
                error: Denied? = nil, dynamicMetadata: ProtoStruct = ProtoStruct()) {
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.denied = denied
        self.ok = ok
        self.error = error
        self.dynamicMetadata = dynamicMetadata
    }

    /// `envoy.service.auth.v3.DeniedHttpResponse`.
    public struct Denied: Sendable, Hashable {
        /// `envoy.type.v3.HttpStatus.code`: 401, 403, 503 ...
        public var httpStatus: Int32
        public var headers: [EnvoyHeaderValueOption]
        public var body: String

        public init(httpStatus: Int32, headers: [EnvoyHeaderValueOption] = [], body: String = "") {
            self.httpStatus = httpStatus
            self.headers = headers
            self.body = body
        }
    }

    /// `envoy.service.auth.v3.OkHttpResponse`.
    public struct OK: Sendable, Hashable {
        /// Headers set on the request before it goes upstream.
        public var headers: [EnvoyHeaderValueOption]
        /// Headers removed from the request before it goes upstream.
        public var headersToRemove: [String]

        public init(headers: [EnvoyHeaderValueOption] = [], headersToRemove: [String] = []) {
            self.headers = headers
            self.headersToRemove = headersToRemove
        }
    }
}

extension EnvoyCheckResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.CheckResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        let status = try message.message(1, as: RPCStatus.self)
        statusCode = status?.code ?? 0
        statusMessage = status?.message ?? ""
        denied = try message.message(2, as: Denied.self)
        ok = try message.message(3, as: OK.self)
        error = try message.message(5, as: Denied.self)
        dynamicMetadata = try message.message(4, as: ProtoStruct.self) ?? ProtoStruct()
    }

    func write(to message: MessageWriter) {
        message.message(1, RPCStatus(code: statusCode, message: statusMessage))
        // Members of one oneof: writing one sets it as the member, so only the one that applies is written.
        if let denied {
            message.message(2, denied)
        } else if let ok {
            message.message(3, ok)
        } else if let error {
            message.message(5, error)
        }
        if !dynamicMetadata.fields.isEmpty { message.message(4, dynamicMetadata) }
    }

    /// `google.rpc.Status` without `details`.
    struct RPCStatus: CBackedMessage {
        static let descriptor = MessageDescriptor("google.rpc.Status")
        var code: Int32
        var message: String

        init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }

        init(reading message: MessageReader) throws(GRPCStatus) {
            code = message.int32(1)
            self.message = try message.string(2)
        }

        func write(to message: MessageWriter) {
            message.int32(1, code)
            message.string(2, self.message)
        }
    }

    /// `envoy.type.v3.HttpStatus`.
    struct HttpStatus: CBackedMessage {
        static let descriptor = MessageDescriptor("envoy.type.v3.HttpStatus")
        var code: Int32

        init(code: Int32) { self.code = code }
        init(reading message: MessageReader) { code = message.int32(1) }
        func write(to message: MessageWriter) { message.int32(1, code) }
    }
}

extension EnvoyCheckResponse.Denied: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.DeniedHttpResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        httpStatus = try message.message(1, as: EnvoyCheckResponse.HttpStatus.self)?.code ?? 0
        headers = try message.messages(2, as: EnvoyHeaderValueOption.self)
        body = try message.string(3)
    }

    func write(to message: MessageWriter) {
        message.message(1, EnvoyCheckResponse.HttpStatus(code: httpStatus))
        message.messages(2, headers)
        message.string(3, body)
    }
}

extension EnvoyCheckResponse.OK: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.OkHttpResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        headers = try message.messages(2, as: EnvoyHeaderValueOption.self)
        headersToRemove = try message.strings(5)
    }

    func write(to message: MessageWriter) {
        message.messages(2, headers)
        message.strings(5, headersToRemove)
    }
}
