import GRPC
import HTTP

extension HTTPResponse {
    /// A successful gRPC answer: headers, one framed message, then `grpc-status: 0` in the trailers.
    static func grpc(framedMessage: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: grpcHeaders, body: framedMessage, trailers: okTrailers)
    }

    /// A gRPC error: one HEADERS frame carrying the status (trailers-only).
    static func grpcTrailersOnly(_ status: GRPCStatus) -> HTTPResponse {
        HTTPResponse(status: 200, headers: HTTPHeaders(GRPCResponseHead.trailersOnly(for: status).compactMap(Self.regular)))
    }

    /// A REST answer: the JSON body Google's clients expect.
    static func json(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: 200, headers: jsonHeaders, body: body)
    }

    /// A REST error in Google's shape, `{"error":{"code":403,"message":"…","status":"PERMISSION_DENIED"}}`, with
    /// the HTTP status of the code unless `httpStatus` overrides it (405, 415).
    static func restError(_ status: GRPCStatus, httpStatus: Int? = nil) -> HTTPResponse {
        let code = httpStatus ?? status.code.httpStatus
        var writer = JSONWriter(capacity: 64 + status.message.utf8.count)
        writer.appendRaw("{\"error\":{\"code\":")
        writer.appendRaw(String(code).utf8)
        writer.appendRaw(",\"message\":")
        writer.appendString(status.message)
        writer.appendRaw(",\"status\":")
        writer.appendString(status.code.name)
        writer.appendRaw("}}")
        return HTTPResponse(status: code, headers: jsonHeaders, body: writer.bytes)
    }

    private static let grpcHeaders = HTTPHeaders(GRPCResponseHead.headers.compactMap(regular))
    private static let okTrailers = HTTPHeaders(GRPCResponseHead.trailers(for: .ok).compactMap(regular))
    private static let jsonHeaders = HTTPHeaders([("content-type", "application/json; charset=UTF-8")])

    /// Header fields without HTTP/2 pseudo-headers (the HTTP layer writes `:status` from `status`).
    private static func regular(_ field: HeaderField) -> (String, String)? {
        field.name.hasPrefix(":") ? nil : (field.name, field.value)
    }
}

