internal import CNghttp2

/// The client side of one HTTP/2 connection, on nghttp2, with no socket of its own (like the server's
/// `HTTP2Session`): requests are submitted, the bytes to send are taken with ``produce(into:until:)``, the bytes
/// received are fed to ``receive(_:)``, and responses arrive at the ``HTTP2ClientDelegate`` from inside those two
/// calls. Used by attestd-bench's connections and the HTTP tests' client. Confined to one thread at a time.
public final class HTTP2ClientSession {
    private var session: OpaquePointer?
    /// The delegate owns the session (and outlives it), so the session does not retain it.
    private unowned(unsafe) let delegate: any HTTP2ClientDelegate

    /// Starts a session whose first frame is SETTINGS with `settings`; `connectionWindowBytes` widens the
    /// connection's receive window beyond the default 64 KiB. `reportsGoAway`: the delegate hears of GOAWAY frames
    /// (a callback on every frame received, which a session that does not care is spared).
    public init(delegate: any HTTP2ClientDelegate, settings: [(HTTP2Setting, UInt32)] = [],
                connectionWindowBytes: Int32? = nil, reportsGoAway: Bool = false) {
        self.delegate = delegate
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, clientOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientOnData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientOnStreamClose)
        if reportsGoAway { nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientOnFrame) }
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        submitSettings(settings)
        if let connectionWindowBytes {
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, connectionWindowBytes)
        }
    }

    deinit { nghttp2_session_del(session) }

    /// Queues a request; returns its stream id, or a negative nghttp2 error code when the session refused it
    /// (closed, or out of stream ids). With `hasBody`, the delegate's `body(stream:into:)` supplies it.
    public func submitRequest(_ headers: HTTP2RequestHeaders, contentLength: Int = 0, hasBody: Bool) -> Int32 {
        headers.withFields(contentLength: contentLength) { fields, count in
            guard hasBody else { return nghttp2_submit_request(session, nil, fields, count, nil, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: clientReadBody)
            return nghttp2_submit_request(session, nil, fields, count, &provider, nil)
        }
    }

    /// Whether the session has frames to send.
    public var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// Whether the session still expects frames from the server.
    public var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }

    /// Appends the frames the session has to send to `output`, until none are left or `output` holds more than
    /// `limit` bytes.
    public func produce(into output: inout [UInt8], until limit: Int = .max) {
        while output.count <= limit, nghttp2_session_want_write(session) != 0 {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { return }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// Feeds bytes from the server to the session; false when they broke the protocol (the session then has a
    /// GOAWAY to send and accepts nothing more).
    public func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
        return nghttp2_session_mem_recv(session, start.assumingMemoryBound(to: UInt8.self), bytes.count) >= 0
    }

    /// The server's value for `setting` (its SETTINGS frame's, once that has arrived; the protocol's default before).
    public func remoteSetting(_ setting: HTTP2Setting) -> UInt32 {
        nghttp2_session_get_remote_settings(session, nghttp2_settings_id(rawValue: UInt32(setting.id)))
    }

    /// Queues a SETTINGS frame.
    public func submitSettings(_ settings: [(HTTP2Setting, UInt32)]) {
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.0.id, value: $0.1) }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    /// Queues a PING.
    public func submitPing() {
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Queues a WINDOW_UPDATE of `increment` bytes for `stream` (0: the connection).
    public func submitWindowUpdate(stream: Int32, increment: Int32) {
        nghttp2_submit_window_update(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, increment)
    }

    /// Queues RST_STREAM(CANCEL) for `stream`.
    public func cancel(stream: Int32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
    }

    /// Asks again for the body of a stream whose delegate answered `.later`.
    public func resumeBody(stream: Int32) {
        nghttp2_session_resume_data(session, stream)
    }

    // MARK: nghttp2 callbacks (called only from inside mem_recv / mem_send)

    fileprivate func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        delegate.header(
            stream: frame.pointee.hd.stream_id, name: name, value: value,
            isTrailer: frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS)
    }

    fileprivate func data(_ stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        delegate.data(stream: stream, bytes)
    }

    fileprivate func closed(_ stream: Int32, errorCode: UInt32) {
        delegate.closed(stream: stream, errorCode: errorCode)
    }

    fileprivate func goAway(lastStreamID: Int32, errorCode: UInt32) {
        delegate.goAway(lastStreamID: lastStreamID, errorCode: errorCode)
    }

    fileprivate func body(_ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        switch delegate.body(stream: stream, into: UnsafeMutableBufferPointer(start: buffer, count: length)) {
        case .bytes(let count, let endsStream):
            if endsStream { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        case .later:
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
    }
}

private func clientSession(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession {
    Unmanaged<HTTP2ClientSession>.fromOpaque(userData!).takeUnretainedValue()
}

private func clientOnHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    clientSession(userData).header(
        frame, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private func clientOnData(
    _: OpaquePointer?, _: UInt8, _ stream: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    clientSession(userData).data(stream, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func clientOnStreamClose(_: OpaquePointer?, _ stream: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    clientSession(userData).closed(stream, errorCode: errorCode)
    return 0
}

private func clientOnFrame(_: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
    clientSession(userData).goAway(lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
    return 0
}

private func clientReadBody(
    _: OpaquePointer?, _ stream: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    clientSession(userData).body(stream, into: buffer!, length: length, flags: flags!)
}
