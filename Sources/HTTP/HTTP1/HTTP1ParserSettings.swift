import CHTTPParser

/// The one `http_parser_settings` every HTTP/1.1 session shares. `parser->data` is the HTTP1Session, unretained
/// (the session owns the parser). A non-zero return makes http_parser stop with an error.
///
/// `@unchecked Sendable`: written once here, then only read by http_parser.
final class HTTP1ParserSettings: @unchecked Sendable {
    static let shared = HTTP1ParserSettings()

    let settings: http_parser_settings

    private init() {
        var settings = http_parser_settings()
        settings.on_message_begin = { parser in session(parser).onMessageBegin() }
        settings.on_url = { parser, data, length in session(parser).onURL(UnsafeRawBufferPointer(start: data, count: length)) }
        settings.on_header_field = { parser, data, length in
            session(parser).onHeaderField(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_header_value = { parser, data, length in
            session(parser).onHeaderValue(UnsafeRawBufferPointer(start: data, count: length))
        }
        settings.on_headers_complete = { parser in session(parser).onHeadersComplete() }
        settings.on_body = { parser, data, length in session(parser).onBody(UnsafeRawBufferPointer(start: data, count: length)) }
        settings.on_message_complete = { parser in session(parser).onMessageComplete() }
        self.settings = settings
    }
}

private func session(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTP1Session {
    Unmanaged<HTTP1Session>.fromOpaque(parser!.pointee.data).takeUnretainedValue()
}
