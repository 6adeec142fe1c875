import CShims
import Glibc

/// `@_spi(Testing)`: a `TLS13Records` on one end of a socket pair, keyed with fixed secrets as if a handshake had just
/// ended, and the other end played by a peer that holds the client's key. It lets the fuzzer send what only an
/// authenticated peer can (any inner content type, alert, handshake message, padding), which a real handshake's
/// random keys would hide behind the AEAD. Single-threaded.
@_spi(Testing) public final class TLSRecordsPeer {
    private let records: TLS13Records
    private var sealer: TLS13TrafficKeys
    private let serverFD: Int32
    private let peerFD: Int32
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let sealBuffer: UnsafeMutableRawBufferPointer
    /// The record layer ended the connection (a failure or the peer's close_notify).
    public private(set) var isClosed = false

    /// `suite`: 0, 1 or 2 (AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305). `recordsPerKey` as `TLSConfiguration`'s.
    public init(suite: Int, recordsPerKey: UInt64) {
        let chosen: TLS13Suite = [.aes128GCM, .aes256GCM, .chaCha20Poly1305][suite % 3]
        let clientSecret = [UInt8](repeating: 0xC1, count: chosen.secretLength)
        let serverSecret = [UInt8](repeating: 0x5E, count: chosen.secretLength)
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fatalError("socketpair failed") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        serverFD = fds[0]
        peerFD = fds[1]
        guard let records = TLS13Records(fd: serverFD, suite: chosen, clientSecret: clientSecret, serverSecret: serverSecret,
                                         recordsPerKey: recordsPerKey),
            let sealer = TLS13TrafficKeys(suite: chosen, secret: clientSecret, encrypts: true)
        else { fatalError("cannot key the record layer") }
        self.records = records
        self.sealer = sealer
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        sealBuffer = .allocate(byteCount: TLS13Records.sealBufferBytes, alignment: 16)
    }

    deinit {
        sealer.free()
        Glibc.close(serverFD)
        Glibc.close(peerFD)
        readBuffer.deallocate()
        sealBuffer.deallocate()
    }

    /// The peer seals `content`, then `contentType`, then `padding` zeros, as its next record (a record of at most
    /// 2^14 + 256 bytes of inner plaintext: longer ones cannot be framed) and sends it. A well-formed KeyUpdate moves
    /// the peer to its next key after it, as a real peer would.
    public func sendSealed(content: [UInt8], contentType: UInt8, padding: Int) {
        guard content.count + 1 + padding + TLS13TrafficKeys.tagLength <= TLS13Records.maxCiphertext,
            let record = sealer.sealedRecord(content: content, contentType: contentType, padding: padding)
        else { return }
        sendRaw(record)
        if contentType == 22 && content.count == 5 && content[0..<4] == [24, 0, 0, 1] && content[4] <= 1 {
            _ = sealer.update()
        }
    }

    /// The peer sends bytes as they are (as far as the socket takes them).
    public func sendRaw(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Posix.write(peerFD, $0) }
    }

    /// The record layer reads what arrived; returns the plaintext it delivered.
    @discardableResult
    public func serverReads() -> Int {
        guard !isClosed else { return 0 }
        var delivered = 0
        for _ in 0..<4 {
            switch records.read(into: readBuffer) {
            case .bytes(let count): delivered += count
            case .wouldBlock: return delivered
            case .endOfFile, .failed: isClosed = true; return delivered
            }
        }
        return delivered
    }

    /// The record layer writes `count` more bytes of plaintext, after what it has not yet reported written, as far
    /// as the socket takes them (the peer drains it first when `drain`): a write that would block is retried with
    /// the same bytes and more, as a connection does.
    public func serverWrites(_ count: Int, drain: Bool) {
        guard !isClosed else { return }
        if drain { drainPeer() }
        unwritten += count
        let plaintext = [UInt8](repeating: 0x70, count: unwritten)
        var offset = 0
        while offset < plaintext.count {
            let result = plaintext[offset...].withUnsafeBytes { records.write($0, scratch: sealBuffer) }
            guard case .bytes(let written) = result else {
                if case .failed = result { isClosed = true }
                break
            }
            offset += written
        }
        unwritten -= offset
    }

    /// Plaintext handed to `serverWrites` and not yet reported written.
    private var unwritten = 0

    /// Sends close_notify (the connection's end).
    public func serverShutdown() {
        records.shutdown()
    }

    private func drainPeer() {
        while case .bytes = Posix.read(peerFD, into: readBuffer) {}
    }
}
