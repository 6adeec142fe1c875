import CNghttp2

/// The one `nghttp2_session_callbacks` every server session shares, built once.
///
/// `@unchecked Sendable`: the callbacks object is written only here, then only read by nghttp2.
final class NGHTTP2Callbacks: @unchecked Sendable {
    static let shared = NGHTTP2Callbacks()

    let pointer: OpaquePointer

    private init() {
        var callbacks: OpaquePointer?
        precondition(nghttp2_session_callbacks_new(&callbacks) == 0, "nghttp2_session_callbacks_new: out of memory")
        pointer = callbacks!
        nghttp2_session_callbacks_set_on_begin_headers_callback(pointer, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(pointer, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(pointer, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(pointer, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(pointer, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(pointer, onFrameSent)
        nghttp2_session_callbacks_set_on_begin_frame_callback(pointer, onBeginFrame)
    }
}

// The C callbacks: each recovers the HTTP2Session from user_data (passed unretained: the session owns the
// nghttp2_session and deletes it in deinit, so user_data never outlives it) and forwards to a method.

private func session(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
    Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
}

private func onBeginHeaders(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
    else { return 0 }
    session(userData).onBeginHeaders(streamID: frame.pointee.hd.stream_id)
    return 0
}

private func onHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    let wanted = session(userData).onHeader(
        streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    // The stream has been reset with a code of our choosing; this tells nghttp2 to skip the rest of the block.
    return wanted ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
}

private func onFrameReceived(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_HEADERS.rawValue:
        session(userData).onHeadersReceived(streamID: frame.pointee.hd.stream_id, endStream: endStream)
    case NGHTTP2_DATA.rawValue:
        if endStream {
            session(userData).onDataEnded(streamID: frame.pointee.hd.stream_id)
        } else if frame.pointee.hd.length == 0 {
            session(userData).spendFrameBudget(1, for: "empty DATA frames")
        } else {
            session(userData).onBodyContinues(streamID: frame.pointee.hd.stream_id)
        }
    case NGHTTP2_PING.rawValue, NGHTTP2_SETTINGS.rawValue:
        // Each one obliges an ACK; the ACKs themselves cost nothing.
        if frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
            session(userData).spendFrameBudget(1, for: "PING or SETTINGS frames")
        }
    case NGHTTP2_WINDOW_UPDATE.rawValue:
        session(userData).spendFrameBudget(1, for: "WINDOW_UPDATE frames")
    case NGHTTP2_PRIORITY.rawValue:
        session(userData).spendFrameBudget(1, for: "PRIORITY frames")
    case NGHTTP2_RST_STREAM.rawValue:
        // Rapid reset (CVE-2023-44487): each reset stream had a request that cost work to parse and maybe start.
        session(userData).spendFrameBudget(1, for: "RST_STREAM frames")
    default:
        break
    }
    return 0
}

/// Every frame header: HEADERS are checked for reused stream ids (nghttp2 ignores those silently), and frames of
/// types nghttp2 does not handle, skipped without any other callback, are paid for here.
private func onBeginFrame(
    _: OpaquePointer?, _ header: UnsafePointer<nghttp2_frame_hd>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let header else { return 0 }
    if header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue) {
        session(userData).onHeadersFrameBegins(streamID: header.pointee.stream_id)
    } else if header.pointee.type > UInt8(NGHTTP2_CONTINUATION.rawValue) {
        session(userData).spendFrameBudget(1, for: "frames of unknown types")
    }
    return 0
}

private func onDataChunk(
    _: OpaquePointer?, _: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    session(userData).onData(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func onStreamClose(
    _: OpaquePointer?, _ streamID: Int32, _: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    session(userData).onStreamClosed(streamID: streamID)
    return 0
}

private func onFrameSent(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    switch type {
    case NGHTTP2_DATA.rawValue:
        session(userData).onDataSent()
    case NGHTTP2_RST_STREAM.rawValue:
        session(userData).onResetSent(streamID: frame.pointee.hd.stream_id)
        let code = frame.pointee.rst_stream.error_code
        if code != NGHTTP2_NO_ERROR.rawValue && code != NGHTTP2_CANCEL.rawValue {
            // A stream refused beyond SETTINGS_MAX_CONCURRENT_STREAMS, or a malformed request: its headers were
            // decoded for nothing.
            session(userData).spendFrameBudget(1, for: "streams refused or malformed")
        }
        return 0
    default:
        break
    }
    guard frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 else { return 0 }
    guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue else { return 0 }
    session(userData).onResponseEnded(streamID: frame.pointee.hd.stream_id)
    return 0
}

/// The data provider's read callback for response bodies.
func readResponseBody(
    _: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    session(userData).readBody(streamID: streamID, into: buffer!, capacity: length, flags: flags!)
}
