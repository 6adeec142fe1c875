internal import COpenSSL
internal import CShimsOpenSSL
import Crypto
import Glibc

/// The client SSL_CTX shared by a client's connections (``TLSClientConnection``), made from a
/// ``TLSClientConfiguration``.
///
/// `@unchecked Sendable`: after `init` the context is only read to create SSL objects, which OpenSSL allows from
/// any thread; it is freed in `deinit` when no connection can still use it.
public final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Whether connections check the server's certificate and name.
    let verifiesServer: Bool

    /// Loads the CA and client files (blocking file I/O: make a context once, not per connection).
    public init(_ configuration: TLSClientConfiguration) throws(TLSError) {
        // OpenSSL writes to the socket with write(2), which raises SIGPIPE when the server went away: that must be an
        // error on the connection, not the end of the process.
        signal(SIGPIPE, SIG_IGN)
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw SSLOutcome.setupFailure("SSL_CTX_new failed") }
        self.context = context
        verifiesServer = configuration.verifiesServer
        guard cshims_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw SSLOutcome.setupFailure("cannot require TLS 1.2")
        }
        if let maximum = configuration.maximumVersion {
            guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(maximum.openSSLValue), nil) == 1 else {
                throw SSLOutcome.setupFailure("cannot limit the version to \(maximum)")
            }
        }
        if let suites = configuration.tls13CipherSuites {
            guard SSL_CTX_set_ciphersuites(context, suites) == 1 else {
                throw SSLOutcome.setupFailure("cannot offer the cipher suites \(suites)")
            }
        }
        // Partial writes and a moving buffer: a caller's output array may grow or move between two tries of a write.
        _ = cshims_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Sessions are kept by whoever resumes them (``TLSClientConnection/session()``), not in a cache of the
        // context, whose flush when the context is freed would mark them not resumable.
        _ = cshims_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        if !configuration.applicationProtocols.isEmpty {
            let wire = configuration.applicationProtocols.flatMap { [UInt8(truncatingIfNeeded: $0.utf8.count)] + Array($0.utf8) }
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw SSLOutcome.setupFailure("cannot offer ALPN \(configuration.applicationProtocols)")
            }
        }
        if configuration.verifiesServer {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile = configuration.caFilePath {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw SSLOutcome.setupFailure("cannot load CA file \(caFile)")
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                    throw SSLOutcome.setupFailure("cannot load the system's trust store")
                }
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        switch (configuration.certificatePath, configuration.privateKeyPath) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw SSLOutcome.setupFailure("cannot load client certificate \(certificate)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                throw SSLOutcome.setupFailure("cannot load client private key \(key)")
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw SSLOutcome.setupFailure("client private key \(key) does not match the certificate")
            }
        default:
            throw SSLOutcome.setupFailure("a client certificate needs its private key, and a private key its certificate")
        }
    }

    deinit { SSL_CTX_free(context) }
}
