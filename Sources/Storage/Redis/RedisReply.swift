/// A reply from Redis, copied out of hiredis's reply object.
enum RedisReply: Equatable, Sendable {
    case string([UInt8])
    case status(String)
    case integer(Int64)
    case array([RedisReply])
    case null
    /// An error reply (`-ERR …`, `-NOSCRIPT …`, `-WRONGPASS …`): the command failed, the connection is fine.
    case error(String)

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var text: String? {
        switch self {
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}

/// Why a Redis call failed. `connection` failures (refused, reset, timed out) leave the connection unusable;
/// `closed` ones (the server had closed it, as after a restart) may be retried on a new one, because the command
/// most likely never ran; `server` failures are answers.
enum RedisFailure: Error {
    case connection(String)
    case closed(String)
    case server(String)

    var storeError: StoreError {
        switch self {
        case .connection(let message), .closed(let message): return StoreError("redis: \(message)")
        case .server(let message): return StoreError("redis: server error: \(message)")
        }
    }
}
