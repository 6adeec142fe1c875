internal import CNghttp2

/// An HTTP/2 SETTINGS parameter (RFC 9113 §6.5.2).
public struct HTTP2Setting: Sendable, Hashable {
    let id: Int32

    public static let headerTableSize = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue))
    public static let enablePush = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue))
    public static let maxConcurrentStreams = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue))
    public static let initialWindowSize = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue))
    public static let maxFrameSize = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue))
    public static let maxHeaderListSize = HTTP2Setting(id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue))
}
