import Glibc

/// The TLS 1.3 record layer (RFC 8446 §5) of a connection whose handshake OpenSSL finished: once the traffic keys
/// exist, OpenSSL's per-connection state (about 13.9 KB: the `SSL` object alone is 7.6 KB) is freed, and this keeps
/// what the records need, two AEAD contexts and their secrets (about 2.3 KB). What the kernel's TLS offload would
/// do, had this kernel a `tls` ULP. The cryptography stays OpenSSL's (the AEADs, HKDF's HMAC); this only frames.
///
/// It handles what a peer may send after the handshake: application data, alerts (close_notify ends the stream;
/// any other is fatal) and KeyUpdate (§4.6.3, answered by one KeyUpdate of ours before our next record, however
/// many arrive meanwhile). Anything else ends the connection with the alert the RFC names. This side updates its
/// own keys after 2^24 records, under AES-GCM's limit of 2^24.5 (§5.5). No session tickets are issued (the context
/// sets none), so nothing else follows the handshake.
///
/// Confined to the connection's loop thread.
final class TLS13Records {
    /// The largest plaintext of one record (2^14) and the largest protected record (2^14 + 256) (§5.1, §5.2).
    static let maxPlaintext = 16_384
    static let maxCiphertext = 16_384 + 256
    /// Room to seal one full record, and a KeyUpdate record before it.
    static let sealBufferBytes = 5 + maxPlaintext + 1 + TLS13TrafficKeys.tagLength + keyUpdateRecordBytes
    private static let keyUpdateRecordBytes = 5 + 5 + 1 + TLS13TrafficKeys.tagLength

    private let fd: Int32
    /// Records this side protects with one key before it moves to the next.
    private let recordsPerKey: UInt64
    private var reader: TLS13TrafficKeys
    private var writer: TLS13TrafficKeys
    /// Received bytes of a record not yet complete; empty (and unallocated) between records.
    private var inbound: [UInt8] = []
    /// Sealed bytes the socket has not taken yet, and how many plaintext bytes the caller handed in for them (a
    /// `write` reports them only once all are sent, as `SSL_write` does).
    private var outbound: [UInt8] = []
    private var outboundPlaintext = 0
    /// The peer asked for a KeyUpdate, or our key reached its limit: one goes out before the next record.
    private var keyUpdateDue = false
    private var peerClosed = false

    /// Keys for both directions, or nil when OpenSSL fails to set them up.
    init?(fd: Int32, suite: TLS13Suite, clientSecret: [UInt8], serverSecret: [UInt8], recordsPerKey: UInt64) {
        guard var reader = TLS13TrafficKeys(suite: suite, secret: clientSecret, encrypts: false) else { return nil }
        guard let writer = TLS13TrafficKeys(suite: suite, secret: serverSecret, encrypts: true) else {
            reader.free()
            return nil
        }
        self.fd = fd
        self.recordsPerKey = recordsPerKey
        self.reader = reader
        self.writer = writer
    }

    deinit {
        reader.free()
        writer.free()
    }

    // MARK: Reading

    /// Reads from the socket and returns the plaintext of the whole records that arrived, in `buffer` (at least
    /// one full record long). Records without application data (empty ones, KeyUpdates) are read past, for a few
    /// socket reads: then `.wouldBlock`, and level-triggered epoll comes back for the rest, so a peer sending only
    /// those cannot keep its loop from other connections.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        precondition(buffer.count >= 5 + Self.maxCiphertext)
        for _ in 0..<Self.readsPerCall {
            if peerClosed { return .endOfFile }
            var filled = inbound.count
            if filled > 0 {
                inbound.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: filled) }
                inbound = []
            }
            switch Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
            case .bytes(let count):
                filled += count
            case .wouldBlock:
                keepInbound(buffer, from: 0, to: filled)
                return .wouldBlock
            case .endOfFile:
                return .endOfFile
            case .failed(let reason):
                return .failed(reason)
            }
            switch openRecords(buffer, filled: filled) {
            case .plaintext(let count) where count > 0:
                return .bytes(count)
            case .plaintext:
                continue
            case .failed(let alert, let reason):
                if let alert { sendAlert(alert) }
                return .failed("TLS: \(reason)")
            }
        }
        return .wouldBlock
    }

    private static let readsPerCall = 4

    private enum Opened {
        case plaintext(Int)
        /// The alert to send before closing, nil when the peer's own alert ended the connection.
        case failed(alert: UInt8?, String)
    }

    /// Opens every whole record in `buffer[..<filled]`, gathers their application data at the buffer's start and
    /// keeps the bytes of an incomplete record for the next read.
    private func openRecords(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Opened {
        let base = buffer.baseAddress!
        var position = 0
        var plaintextEnd = 0
        while filled - position >= 5, !peerClosed {
            let record = base + position
            let type = record.load(as: UInt8.self)
            let length = Int(record.load(fromByteOffset: 3, as: UInt8.self)) << 8
                | Int(record.load(fromByteOffset: 4, as: UInt8.self))
            // legacy_record_version is ignored, as §5.1 asks.
            guard type == 23 else { return .failed(alert: Alert.unexpectedMessage, "unexpected record type \(type)") }
            guard length <= Self.maxCiphertext else { return .failed(alert: Alert.recordOverflow, "record too long") }
            guard filled - position >= 5 + length else { break }
            guard reader.open(record: record, length: length) else {
                return .failed(alert: Alert.badRecordMAC, "record failed authentication")
            }
            position += 5 + length
            // TLSInnerPlaintext: content, the content type, then zeros.
            var end = length - TLS13TrafficKeys.tagLength
            while end > 0 && record.load(fromByteOffset: 5 + end - 1, as: UInt8.self) == 0 { end -= 1 }
            guard end > 0 else { return .failed(alert: Alert.unexpectedMessage, "record without a content type") }
            let contentType = record.load(fromByteOffset: 5 + end - 1, as: UInt8.self)
            let content = UnsafeMutableRawBufferPointer(start: record + 5, count: end - 1)
            guard content.count <= Self.maxPlaintext else { return .failed(alert: Alert.recordOverflow, "plaintext too long") }
            switch contentType {
            case 23:
                (base + plaintextEnd).copyMemory(from: content.baseAddress!, byteCount: content.count)
                plaintextEnd += content.count
            case 21:
                if let failure = receiveAlert(content) { return failure }
            case 22:
                if let failure = receiveHandshake(content) { return failure }
            default:
                return .failed(alert: Alert.unexpectedMessage, "unexpected content type \(contentType)")
            }
        }
        keepInbound(buffer, from: peerClosed ? filled : position, to: filled)
        return .plaintext(plaintextEnd)
    }

    /// An alert (§6): close_notify ends the stream once the data before it is delivered; user_canceled precedes a
    /// close_notify; any other alert is fatal in TLS 1.3.
    private func receiveAlert(_ content: UnsafeMutableRawBufferPointer) -> Opened? {
        guard content.count == 2 else { return .failed(alert: Alert.decodeError, "malformed alert") }
        switch content[1] {
        case Alert.closeNotify:
            peerClosed = true
            return nil
        case Alert.userCanceled:
            return nil
        case let description:
            return .failed(alert: nil, "peer sent alert \(description)")
        }
    }

    /// Post-handshake messages (§4.6): only KeyUpdate is expected, whole and at the end of its record (§5.1: a
    /// handshake message must not span a key change).
    private func receiveHandshake(_ content: UnsafeMutableRawBufferPointer) -> Opened? {
        guard content.count == 5, content[0] == 24, content[1] == 0, content[2] == 0, content[3] == 1 else {
            let type = content.first.map(String.init) ?? "none"
            return .failed(alert: Alert.unexpectedMessage, "unexpected handshake message (type \(type), \(content.count) bytes)")
        }
        switch content[4] {
        case 0: break
        case 1: keyUpdateDue = true
        default: return .failed(alert: Alert.illegalParameter, "KeyUpdate with request_update \(content[4])")
        }
        guard reader.update() else { return .failed(alert: Alert.internalError, "KeyUpdate: key derivation failed") }
        return nil
    }

    private func keepInbound(_ buffer: UnsafeMutableRawBufferPointer, from start: Int, to end: Int) {
        guard end > start else { return }
        inbound = Array(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
    }

    // MARK: Writing

    /// Seals up to one record of `bytes` and sends it. Like `SSL_write` with partial writes: returns the plaintext
    /// bytes whose record is wholly sent; when the socket takes only part, `.wouldBlock`, and the next call (with at
    /// least the same bytes at its start) sends the rest and reports them. `scratch` is the loop's, at least
    /// `sealBufferBytes` long.
    func write(_ bytes: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer) -> IOResult {
        precondition(scratch.count >= Self.sealBufferBytes)
        if !outbound.isEmpty {
            if let stopped = sendOutbound() { return stopped }
            if outboundPlaintext > 0 {
                defer { outboundPlaintext = 0 }
                // The caller broke the retry rule: what it was told is unsent is already on the wire.
                guard bytes.count >= outboundPlaintext else { return .failed("TLS: a retried write offered fewer bytes") }
                return .bytes(outboundPlaintext)
            }
        }
        guard !bytes.isEmpty else { return .bytes(0) }
        var sealed = 0
        if keyUpdateDue || writer.sequence >= recordsPerKey {
            guard let length = sealKeyUpdate(at: scratch.baseAddress!) else { return .failed("TLS: KeyUpdate failed") }
            sealed = length
        }
        let count = min(bytes.count, Self.maxPlaintext)
        let record = scratch.baseAddress! + sealed
        (record + 5).copyMemory(from: bytes.baseAddress!, byteCount: count)
        (record + 5 + count).storeBytes(of: 23, as: UInt8.self)
        guard writer.seal(record: record, innerLength: count + 1) else { return .failed("TLS: sealing a record failed") }
        sealed += 5 + count + 1 + TLS13TrafficKeys.tagLength
        let all = UnsafeRawBufferPointer(rebasing: scratch[0..<sealed])
        switch Posix.write(fd, all) {
        case .bytes(let sent) where sent == sealed:
            return .bytes(count)
        case .bytes(let sent):
            outbound = Array(all[sent...])
        case .wouldBlock:
            outbound = Array(all)
        case let other:
            return other
        }
        outboundPlaintext = count
        return .wouldBlock
    }

    /// Sends close_notify, best effort (the socket is closed right after).
    func shutdown() {
        sendAlert(Alert.closeNotify)
    }

    /// Sends what an earlier write left: nil once all is sent, else what stopped it.
    private func sendOutbound() -> IOResult? {
        let result = outbound.withUnsafeBytes { Posix.write(fd, $0) }
        switch result {
        case .bytes(let sent) where sent == outbound.count:
            outbound = []
            return nil
        case .bytes(let sent):
            outbound.removeFirst(sent)
            return .wouldBlock
        case let other:
            return other
        }
    }

    /// Seals our KeyUpdate (update_not_requested) with the current key at `record`, then moves to the next key.
    private func sealKeyUpdate(at record: UnsafeMutableRawPointer) -> Int? {
        let message: [UInt8] = [24, 0, 0, 1, 0, 22]  // KeyUpdate, length 1, update_not_requested; content type
        (record + 5).copyMemory(from: message, byteCount: message.count)
        guard writer.seal(record: record, innerLength: message.count), writer.update() else { return nil }
        keyUpdateDue = false
        return Self.keyUpdateRecordBytes
    }

    /// One alert record, sent once if the socket takes it whole and nothing is left unsent before it.
    private func sendAlert(_ description: UInt8) {
        guard outbound.isEmpty else { return }
        withUnsafeTemporaryAllocation(byteCount: 5 + 3 + TLS13TrafficKeys.tagLength, alignment: 8) { record in
            record[5] = description == Alert.closeNotify || description == Alert.userCanceled ? 1 : 2
            record[6] = description
            record[7] = 21
            guard writer.seal(record: record.baseAddress!, innerLength: 3) else { return }
            _ = Posix.write(fd, UnsafeRawBufferPointer(record))
        }
    }

    /// Alert descriptions (§6).
    private enum Alert {
        static let closeNotify: UInt8 = 0
        static let unexpectedMessage: UInt8 = 10
        static let badRecordMAC: UInt8 = 20
        static let recordOverflow: UInt8 = 22
        static let illegalParameter: UInt8 = 47
        static let decodeError: UInt8 = 50
        static let internalError: UInt8 = 80
        static let userCanceled: UInt8 = 90
    }
}
