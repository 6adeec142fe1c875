import COpenSSL
import Crypto

/// The TLS side of one connection: OpenSSL's SSL object on the connection's non-blocking socket for the
/// handshake, which runs inside the first reads. A TLS 1.3 connection then moves to `TLS13Records` and frees the
/// SSL object; a TLS 1.2 one (or any when the listener keeps records with OpenSSL) stays with OpenSSL throughout.
/// Confined to the connection's loop thread.
final class TLSStream {
    private let fd: Int32
    private let context: TLSContext
    /// Until the handshake ends, and after it for a connection that stays with OpenSSL.
    private var ssl: OpaquePointer?
    /// The record layer after a TLS 1.3 handshake.
    private var records: TLS13Records?
    private var handshakeDone = false
    /// The traffic secrets OpenSSL's key log callback hands over during the handshake (see `TLSContext`).
    private var clientSecret: [UInt8] = []
    private var serverSecret: [UInt8] = []
    /// A read needs the socket to become writable first (handshake output that did not fit).
    private(set) var readWantsWrite = false
    /// The protocol chosen by ALPN (`h2`, `http/1.1`), or nil if none was negotiated (or not yet).
    private(set) var negotiatedProtocol: String?
    /// The client's certificate, verified against the listener's client CAs during the handshake; nil when the
    /// listener asks for none or the client sent none.
    private(set) var clientCertificate: ClientCertificate?

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        self.fd = fd
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
        // The key log callback finds this stream through the SSL object's app data (index 0); `ssl` never
        // outlives it.
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        forgetSecrets()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        readWantsWrite = false
        if let failure = continueHandshake(wantWrite: &readWantsWrite) { return failure }
        if let records { return records.read(into: buffer) }
        guard let ssl else { return .failed("TLS: connection closed") }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return .bytes(count) }
        return outcome(of: 0, wantWrite: &readWantsWrite)
    }

    /// Writes `bytes` (see `TLS13Records.write` and `SSL_write_ex`: a write that returned `.wouldBlock` must be
    /// retried with at least the same bytes). `scratch` is the loop's buffer for sealing records.
    func write(_ bytes: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer) -> IOResult {
        var ignored = false
        if let failure = continueHandshake(wantWrite: &ignored) { return failure }
        if let records { return records.write(bytes, scratch: scratch) }
        guard let ssl else { return .failed("TLS: connection closed") }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .bytes(count) }
        return outcome(of: 0, wantWrite: &ignored)
    }

    /// Sends close_notify, best effort (the socket is closed right after).
    func shutdown() {
        if let records {
            records.shutdown()
        } else if let ssl {
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            OpenSSLErrorQueue.clear()
        }
    }

    /// Called by the context's key log callback with each secret OpenSSL derives: keeps the two application
    /// traffic secrets ("CLIENT_TRAFFIC_SECRET_0 <client random> <hex>", NSS key log format).
    func noteKeyLogLine(_ line: UnsafePointer<CChar>) {
        guard context.recordLayer == .attestd, let (isClient, secret) = Self.trafficSecret(inKeyLogLine: line) else { return }
        if isClient { clientSecret = secret } else { serverSecret = secret }
    }

    /// The application traffic secret a key log line carries, and whether it is the client's; nil for any other
    /// line (the handshake secrets).
    static func trafficSecret(inKeyLogLine line: UnsafePointer<CChar>) -> (isClient: Bool, secret: [UInt8])? {
        let text = UnsafeBufferPointer(start: line, count: strlen(line))
        let fields = text.split(separator: CChar(UInt8(ascii: " ")), maxSplits: 2)
        guard fields.count == 3 else { return nil }
        let label = String(decoding: fields[0].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard label == "CLIENT_TRAFFIC_SECRET_0" || label == "SERVER_TRAFFIC_SECRET_0",
            let secret = Hex.decode(digits: fields[2].lazy.map { UInt8(bitPattern: $0) })
        else { return nil }
        return (label == "CLIENT_TRAFFIC_SECRET_0", secret)
    }

    /// Drives the handshake until it is done (nil), or returns what stops it. When it completes, a TLS 1.3
    /// connection moves to the record layer.
    private func continueHandshake(wantWrite: inout Bool) -> IOResult? {
        guard !handshakeDone else { return nil }
        guard let ssl else { return .failed("TLS: connection closed") }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { return outcome(of: result, wantWrite: &wantWrite) }
        handshakeDone = true
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        if let data, length > 0 {
            negotiatedProtocol = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
        }
        context.handshakes.add(1, ordering: .relaxed)
        if context.verifiesClients { clientCertificate = ClientCertificate(verifiedBy: ssl) }
        if context.recordLayer == .attestd { moveToRecordLayer(ssl) }
        forgetSecrets()
        return nil
    }

    /// Frees OpenSSL's connection once the records can go on without it: TLS 1.3, one of the three suites, both
    /// secrets logged, and nothing read or written past the handshake (no tickets are sent, and with read-ahead off
    /// OpenSSL reads the client's Finished and no further). Otherwise the connection stays with OpenSSL.
    private func moveToRecordLayer(_ ssl: OpaquePointer) {
        guard SSL_version(ssl) == TLS1_3_VERSION, SSL_has_pending(ssl) == 0,
            let cipher = SSL_get_current_cipher(ssl), let suite = TLS13Suite(protocolID: SSL_CIPHER_get_protocol_id(cipher)),
            let records = TLS13Records(fd: fd, suite: suite, clientSecret: clientSecret, serverSecret: serverSecret,
                recordsPerKey: context.recordsPerKey)
        else { return }
        self.records = records
        // Handed over: the record layer holds the secrets now and wipes them when done.
        clientSecret = []
        serverSecret = []
        context.recordLayerConnections.add(1, ordering: .relaxed)
        SSL_free(ssl)
        self.ssl = nil
    }

    /// Wipes the secrets this stream still holds: those of a connection that stays with OpenSSL, or of a handshake
    /// that never finished (the server's secret is logged before the client's Finished arrives).
    private func forgetSecrets() {
        clientSecret.wipe()
        serverSecret.wipe()
        clientSecret = []
        serverSecret = []
    }

    private func outcome(of result: Int32, wantWrite: inout Bool) -> IOResult {
        guard let ssl else { return .failed("TLS: connection closed") }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantWrite = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .endOfFile
        case SSL_ERROR_SYSCALL:
            let detail = OpenSSLErrorQueue.drain()
            return detail.isEmpty ? .endOfFile : .failed("TLS: \(detail)")
        default:
            let detail = OpenSSLErrorQueue.drain()
            return .failed("TLS: " + (detail.isEmpty ? "protocol error" : detail))
        }
    }
}
