import CHiredis
import Glibc

/// One blocking connection to Redis (hiredis), authenticated and with its database selected.
///
/// `@unchecked Sendable`: a connection is used by one thread at a time, handed over through the pool's lock.
final class RedisConnection: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>
    /// The pool's generation when this connection was made: a connection failure bumps it, retiring the others.
    let generation: Int

    init(_ configuration: RedisConfiguration, generation: Int) throws(RedisFailure) {
        self.generation = generation
        guard let context = redisConnectWithTimeout(
            configuration.host, Int32(configuration.port), Self.timeval(configuration.connectTimeoutMilliseconds))
        else { throw .connection("cannot allocate a connection") }
        guard context.pointee.err == 0 else {
            let message = Self.message(context)
            redisFree(context)
            throw .connection("cannot connect to \(configuration.host):\(configuration.port): \(message)")
        }
        self.context = context
        redisSetTimeout(context, Self.timeval(configuration.commandTimeoutMilliseconds))
        redisEnableKeepAlive(context)
        try setUp(configuration)
    }

    deinit {
        redisFree(context)
    }

    /// Sends one command and waits for its reply.
    func command(_ arguments: [any RedisArgument]) throws(RedisFailure) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends every command in one write, then reads their replies in order: one round trip for all of them.
    func pipeline(_ commands: [[any RedisArgument]]) throws(RedisFailure) -> [RedisReply] {
        for arguments in commands { append(arguments.map(\.redisBytes)) }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                let failure = errno
                let message = context.pointee.err == 0 ? "no reply" : Self.message(context)
                // A timeout is not retried: the command may have run, and a second run would answer "replay".
                let closed = context.pointee.err == REDIS_ERR_EOF
                    || (context.pointee.err == REDIS_ERR_IO && (failure == ECONNRESET || failure == EPIPE))
                throw closed ? .closed(message) : .connection(message)
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(Self.convert(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    private func setUp(_ configuration: RedisConfiguration) throws(RedisFailure) {
        var commands: [[any RedisArgument]] = []
        if let password = configuration.password {
            commands.append(["AUTH"] + (configuration.username.map { [$0] } ?? []) + [password])
        }
        if configuration.database != 0 { commands.append(["SELECT", configuration.database]) }
        guard !commands.isEmpty else { return }
        for reply in try pipeline(commands) {
            if case .error(let message) = reply { throw .server(message) }
        }
    }

    /// Queues a command in hiredis's output buffer; the arguments may hold any bytes.
    private func append(_ arguments: [[UInt8]]) {
        let flat = arguments.flatMap { $0 }
        var offsets: [Int] = []
        var offset = 0
        for argument in arguments {
            offsets.append(offset)
            offset += argument.count
        }
        let lengths = arguments.map(\.count)
        flat.withUnsafeBufferPointer { buffer in
            // A non-nil base even when every argument is empty.
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            var pointers: [UnsafePointer<CChar>?] = offsets.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            pointers.withUnsafeMutableBufferPointer { pointers in
                lengths.withUnsafeBufferPointer { lengths in
                    // hiredis copies the arguments into its output buffer before returning.
                    _ = redisAppendCommandArgv(context, Int32(arguments.count), pointers.baseAddress, lengths.baseAddress)
                }
            }
        }
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .string(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            return .array((0..<value.elements).map { convert(value.element[$0]!) })
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func message(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func timeval(_ milliseconds: Int) -> Glibc.timeval {
        Glibc.timeval(tv_sec: milliseconds / 1_000, tv_usec: (milliseconds % 1_000) * 1_000)
    }
}
