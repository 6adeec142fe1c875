import CHiredis
import TLS

/// One blocking connection to Redis, authenticated and with its database selected. The bytes travel over our own
/// socket, plain or TLS (Debian 12's hiredis 0.14 has no TLS); commands are written in RESP here (an array of bulk
/// strings: simple, and without hiredis's allocations), and hiredis parses the replies.
///
/// `@unchecked Sendable`: a connection is used by one thread at a time, handed over through the pool's lock.
final class RedisConnection: @unchecked Sendable {
    private let transport: any RedisTransport
    private let reader: UnsafeMutablePointer<redisReader>
    private let buffer: UnsafeMutableRawBufferPointer
    /// The commands being sent, in RESP.
    private var output: [UInt8] = []
    private let commandTimeout: Duration
    /// When the replies of the commands last sent are due.
    private var deadline = ContinuousClock.now
    /// The pool's generation when this connection was made: a connection failure bumps it, retiring the others.
    let generation: Int

    /// Connects (and, with `tls`, runs the handshake) within the connect timeout, then authenticates and selects the
    /// database within the command timeout.
    init(_ configuration: RedisConfiguration, tls: TLSClientContext?, generation: Int) throws(RedisFailure) {
        let deadline = ContinuousClock.now + .milliseconds(configuration.connectTimeoutMilliseconds)
        let endpoint = "\(configuration.host):\(configuration.port)"
        do throws(RedisFailure) {
            let socket = try RedisSocket.connect(host: configuration.host, port: configuration.port, deadline: deadline)
            if let tls {
                let serverName = configuration.tls?.serverName ?? configuration.host
                transport = try RedisTLSStream(socket: socket, context: tls, serverName: serverName, deadline: deadline)
            } else {
                transport = socket
            }
        } catch {
            switch error {
            case .connection(let message), .closed(let message):
                throw .connection("cannot connect to \(endpoint): \(message)")
            case .server:
                throw error
            }
        }
        guard let reader = redisReaderCreate() else { throw .connection("cannot allocate a reply reader") }
        self.reader = reader
        buffer = .allocate(byteCount: 16 * 1024, alignment: 1)
        commandTimeout = .milliseconds(configuration.commandTimeoutMilliseconds)
        self.generation = generation
        do throws(RedisFailure) {
            try setUp(configuration, roundTrip: tls != nil)
        } catch {
            // With TLS 1.3 the client's handshake ends before the server has checked the client's certificate; a
            // server that requires one and got none closes the connection at the first command.
            if case .closed(let message) = error, tls != nil {
                throw .connection("the server closed the TLS connection after the handshake (\(message)): "
                    + "it may require a client certificate (tls certificate and privateKey)")
            }
            throw error
        }
    }

    deinit {
        redisReaderFree(reader)
        buffer.deallocate()
    }

    /// Sends one command and waits for its reply.
    func command(_ arguments: [any RedisArgument]) throws(RedisFailure) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends every command in one write, then reads their replies in order: one round trip for all of them, which
    /// must be done within the command timeout. A timeout is not retried: the command may have run, and a second
    /// run would answer "replay".
    func pipeline(_ commands: [[any RedisArgument]]) throws(RedisFailure) -> [RedisReply] {
        try send(commands)
        return try receive(commands.count)
    }

    /// The first half of `pipeline`: sends every command in one write, and starts the command timeout. The replies
    /// are read with `receive`, later, so that one thread can have pipelines in flight to several servers at once.
    func send(_ commands: [[any RedisArgument]]) throws(RedisFailure) {
        deadline = ContinuousClock.now + commandTimeout
        // The buffer keeps its capacity from one command to the next: no allocation once it has grown.
        output.removeAll(keepingCapacity: true)
        for arguments in commands {
            RESP.appendCommandHeader(count: arguments.count, to: &output)
            for argument in arguments { argument.appendRESP(to: &output) }
        }
        let sent: Result<Void, RedisFailure> = output.withUnsafeBytes { bytes in
            Result { () throws(RedisFailure) in try transport.send(bytes, deadline: deadline) }
        }
        try sent.get()
    }

    /// The second half of `pipeline`: reads the replies of the `count` commands `send` sent, by the deadline it set.
    func receive(_ count: Int) throws(RedisFailure) -> [RedisReply] {
        var replies: [RedisReply] = []
        replies.reserveCapacity(count)
        while replies.count < count {
            if let reply = try nextReply() {
                // A master demoted to replica (a failover it missed, a partition that healed) refuses writes: this
                // connection is no good for the store any more; the pool drops it and, with Sentinel, asks again.
                if case .error(let message) = reply, message.hasPrefix("READONLY") {
                    throw .connection("the server is now a read-only replica: \(message)")
                }
                replies.append(reply)
                continue
            }
            let received = try transport.receive(into: buffer, deadline: deadline)
            guard redisReaderFeed(reader, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), received) == REDIS_OK else {
                throw .connection("cannot buffer a reply: \(Self.message(reader))")
            }
        }
        return replies
    }

    /// Authenticates and selects the database; with `roundTrip`, always exchanges at least one command (PING), so
    /// that a server refusing the connection after a TLS handshake is found here, not by the first real command.
    private func setUp(_ configuration: RedisConfiguration, roundTrip: Bool) throws(RedisFailure) {
        var commands: [[any RedisArgument]] = []
        if let password = configuration.password {
            commands.append(["AUTH"] + (configuration.username.map { [$0] } ?? []) + [password])
        }
        if configuration.database != 0 { commands.append(["SELECT", configuration.database]) }
        if commands.isEmpty && roundTrip { commands.append(["PING"]) }
        guard !commands.isEmpty else { return }
        for (index, reply) in try pipeline(commands).enumerated() {
            guard case .error(let message) = reply else { continue }
            // Redis says WRONGPASS without the word "authentication": the operator must see what was refused.
            throw .server(index == 0 && configuration.password != nil ? "authentication refused: \(message)" : message)
        }
    }

    /// The next whole reply already received, or nil when more bytes are needed.
    private func nextReply() throws(RedisFailure) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
            throw .connection("unreadable reply: \(Self.message(reader))")
        }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
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
            // hiredis never leaves an element out; one that were missing reads as nil rather than stopping the process.
            return .array((0..<value.elements).map { value.element[$0].map(convert) ?? .null })
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func message(_ reader: UnsafeMutablePointer<redisReader>) -> String {
        withUnsafeBytes(of: reader.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
