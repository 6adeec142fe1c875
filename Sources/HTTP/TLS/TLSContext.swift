import COpenSSL
import CShims
import Crypto
import Synchronization

/// One SSL_CTX per TLS listener: TLS 1.2+, the configured certificate chain and key, ALPN `h2` then `http/1.1`;
/// with attestd's record layer, no session tickets and a key log callback that hands each connection its traffic
/// secrets (see `TLSStream`).
///
/// `@unchecked Sendable`: after `init` the context is only read (the counters are atomic) (OpenSSL's SSL_CTX is safe to share between
/// threads for creating SSL objects), and it is freed in `deinit` when no connection can still use it.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    let recordLayer: TLSConfiguration.RecordLayer
    let recordsPerKey: UInt64
    /// Whether clients are asked for a certificate that chains to the listener's client CAs.
    let verifiesClients: Bool
    /// Handshakes completed on this listener, and how many of those connections moved to `TLS13Records`.
    let handshakes = Atomic<Int>(0)
    let recordLayerConnections = Atomic<Int>(0)

    /// Loads the PEM certificate chain and key (blocking file I/O: call before the loops start).
    init(_ configuration: TLSConfiguration, listenerName: String) throws(HTTPServerError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw Self.failure(listenerName, "SSL_CTX_new failed")
        }
        self.context = context
        recordLayer = configuration.recordLayer
        recordsPerKey = configuration.recordsPerKey
        // Every stored property is set before the first throw below, so a failed init still runs deinit (which
        // frees the context).
        verifiesClients = configuration.clientCertificateAuthoritiesPath != nil
        _ = cshims_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = cshims_SSL_CTX_set_mode(context, cshims_SSL_MODE_http())
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificatePath) == 1 else {
            throw Self.failure(listenerName, "cannot load certificate \(configuration.certificatePath)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw Self.failure(listenerName, "cannot load private key \(configuration.privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw Self.failure(listenerName, "private key \(configuration.privateKeyPath) does not match the certificate")
        }
        if let authorities = configuration.clientCertificateAuthoritiesPath {
            guard SSL_CTX_load_verify_locations(context, authorities, nil) == 1,
                  let names = SSL_load_client_CA_file(authorities)
            else {
                throw Self.failure(listenerName, "cannot load client certificate authorities \(authorities)")
            }
            // Ownership of the name list passes to the context: the CAs a client is told it may present.
            SSL_CTX_set_client_CA_list(context, names)
            // Asked for, not required: callers that carry a bearer token (and Prometheus) connect without one.
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            SSL_CTX_set_verify_depth(context, 4)
        }
        SSL_CTX_set_alpn_select_cb(context, selectALPN, nil)
        if recordLayer == .attestd {
            // A ticket would be a record written after the handshake, with a sequence number the record layer
            // cannot learn from OpenSSL; long-lived connections make resumption worth little here.
            _ = SSL_CTX_set_num_tickets(context, 0)
            SSL_CTX_set_keylog_callback(context, handOverTrafficSecret)
        }
    }

    deinit { SSL_CTX_free(context) }

    private static func failure(_ listenerName: String, _ what: String) -> HTTPServerError {
        let detail = OpenSSLErrorQueue.drain()
        return HTTPServerError(.tlsSetupFailed, "listener \(listenerName): \(what)" + (detail.isEmpty ? "" : ": \(detail)"))
    }
}

/// The key log callback: passes each line to the connection's `TLSStream`, the SSL object's app data.
private func handOverTrafficSecret(_ ssl: OpaquePointer?, _ line: UnsafePointer<CChar>?) {
    guard let ssl, let line, let stream = SSL_get_ex_data(ssl, 0) else { return }
    Unmanaged<TLSStream>.fromOpaque(stream).takeUnretainedValue().noteKeyLogLine(line)
}

/// ALPN: `h2` if the client offers it, else `http/1.1`; with neither, continue without ALPN (the connection then
/// tells the protocols apart by their first bytes).
private func selectALPN(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32,
    _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
    var http1: (UnsafePointer<UInt8>, UInt8)?
    var index = 0
    let total = Int(offeredLength)
    while index < total {
        let length = Int(offered[index])
        let start = offered + index + 1
        guard index + 1 + length <= total else { break }
        if length == 2 && start[0] == UInt8(ascii: "h") && start[1] == UInt8(ascii: "2") {
            out.pointee = start
            outLength.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        if length == 8 && UnsafeBufferPointer(start: start, count: 8).elementsEqual("http/1.1".utf8) {
            http1 = (start, 8)
        }
        index += 1 + length
    }
    if let http1 {
        out.pointee = http1.0
        outLength.pointee = http1.1
        return SSL_TLSEXT_ERR_OK
    }
    return SSL_TLSEXT_ERR_NOACK
}
