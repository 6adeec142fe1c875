/// Serialises an ``HTTPResponse`` as HTTP/1.1. The server owns framing: `content-length` and `connection` are
/// always its own, and a handler's `transfer-encoding` is dropped (trailers are not sent on HTTP/1.1).
enum HTTP1ResponseWriter {
    private static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    static func write(_ response: HTTPResponse, omitBody: Bool, close: Bool, into output: inout [UInt8]) {
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for (name, value) in response.headers where !framingHeaders.contains(name) {
            head += name
            head += ": "
            head += value
            head += "\r\n"
        }
        let bodyAllowed = response.status >= 200 && response.status != 204 && response.status != 304
        if bodyAllowed { head += "content-length: \(response.body.count)\r\n" }
        if close { head += "connection: close\r\n" }
        head += "\r\n"
        output.append(contentsOf: head.utf8)
        if bodyAllowed && !omitBody { output.append(contentsOf: response.body) }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
