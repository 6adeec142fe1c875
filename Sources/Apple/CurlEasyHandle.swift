import CCurl

/// One libcurl easy handle, used by one thread at a time (the pool hands it out). Between requests it is reset,
/// which keeps its live connections, TLS sessions and DNS cache: that is what makes reuse worth it.
final class CurlEasyHandle: @unchecked Sendable {
    /// `CURL *`, owned.
    private let handle: UnsafeMutableRawPointer

    init?() {
        guard CurlGlobal.initialised, let handle = curl_easy_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends one POST and waits for the whole answer. Throws a transport description (connection refused, TLS,
    /// timeout) when there is no HTTP answer at all.
    func post(
        url: String, headers: [String], body: [UInt8], caBundlePath: String?, connectTimeoutMillis: Int,
        timeoutMillis: Int
    ) -> Result<(status: Int, body: [UInt8]), TransportFailure> {
        curl_easy_reset(handle)
        let sink = ResponseSink()
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        var code = ccurl_setopt_string(handle, CURLOPT_URL, url)
        // Signals cannot be used for timeouts in a multi-threaded process.
        code = code == CURLE_OK ? ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) : code
        code = code == CURLE_OK ? ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS) : code
        code = code == CURLE_OK ? ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMillis) : code
        code = code == CURLE_OK ? ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, max(1, timeoutMillis)) : code
        code = code == CURLE_OK ? ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list) : code
        code = code == CURLE_OK ? ccurl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count) : code
        if code == CURLE_OK {
            // COPYPOSTFIELDS copies the bytes (POSTFIELDSIZE, set first, says how many), so no pointer outlives this call.
            code = body.withUnsafeBufferPointer { buffer in
                ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!))
            }
        }
        if code == CURLE_OK, let caBundlePath { code = ccurl_setopt_string(handle, CURLOPT_CAINFO, caBundlePath) }
        code = code == CURLE_OK ? ccurl_setopt_write_function(handle, appendBody) : code
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()
        code = code == CURLE_OK ? ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, sinkPointer) : code
        guard code == CURLE_OK else { return .failure(TransportFailure(code: code, isSetup: true)) }
        code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        guard code == CURLE_OK else { return .failure(TransportFailure(code: code, isSetup: false)) }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success((status, sink.bytes))
    }
}

/// A libcurl failure before any HTTP answer.
struct TransportFailure: Error {
    let code: CURLcode
    /// The options could not be set: our own bug or configuration, not worth retrying.
    let isSetup: Bool

    /// Failures another attempt cannot cure: a URL we cannot use, or a server certificate our CA bundle does not
    /// trust (a wrong `caBundle` or an impostor), so the caller hears at once instead of after every retry.
    var isPermanent: Bool {
        isSetup || [CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE]
            .contains(code)
    }

    /// libcurl's own timer ran out (connect or whole-request timeout).
    var isTimeout: Bool { code == CURLE_OPERATION_TIMEDOUT }

    var description: String { String(cString: curl_easy_strerror(code)) + " (CURLcode \(code.rawValue))" }
}

/// Collects the response body handed to the write callback.
private final class ResponseSink {
    var bytes: [UInt8] = []
    /// Apple's answers are small; a larger one is cut off and the transfer fails rather than filling memory.
    static let limit = 1 << 20
}

private func appendBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard sink.bytes.count + length <= ResponseSink.limit else { return 0 }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
    return length
}
