import COpenSSL
import CShims

/// One SSL_CTX per TLS listener: TLS 1.2+, the configured certificate chain and key, ALPN `h2` then `http/1.1`.
///
/// `@unchecked Sendable`: after `init` the context is only read (OpenSSL's SSL_CTX is safe to share between
/// threads for creating SSL objects), and it is freed in `deinit` when no connection can still use it.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads the PEM certificate chain and key (blocking file I/O: call before the loops start).
    init(_ configuration: TLSConfiguration, listenerName: String) throws(HTTPServerError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw Self.failure(listenerName, "SSL_CTX_new failed")
        }
        self.context = context
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
        SSL_CTX_set_alpn_select_cb(context, selectALPN, nil)
    }

    deinit { SSL_CTX_free(context) }

    private static func failure(_ listenerName: String, _ what: String) -> HTTPServerError {
        let detail = OpenSSLErrorQueue.drain()
        return HTTPServerError(.tlsSetupFailed, "listener \(listenerName): \(what)" + (detail.isEmpty ? "" : ": \(detail)"))
    }
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
