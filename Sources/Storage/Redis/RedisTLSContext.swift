import COpenSSL
import CShims
import Crypto
import Glibc

/// The client SSL_CTX of one pool: TLS 1.2 or later, the server's certificate verified against the configured CA
/// file or the system's trust store, and the client certificate for mutual TLS if one is configured.
///
/// `@unchecked Sendable`: after `init` the context is only read to create SSL objects, which OpenSSL allows from
/// any thread; it is freed in `deinit` when no connection can still use it.
final class RedisTLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads the CA and client files (blocking file I/O, done once per pool on its first connection).
    init(_ configuration: RedisTLSConfiguration) throws(RedisFailure) {
        // OpenSSL writes to the socket with write(2), which raises SIGPIPE when the server went away; attestd's
        // HTTP server ignores it too, for the same reason.
        signal(SIGPIPE, SIG_IGN)
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Self.failure("SSL_CTX_new failed") }
        self.context = context
        guard cshims_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw Self.failure("cannot require TLS 1.2")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile = configuration.caFilePath {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw Self.failure("cannot load CA file \(caFile)")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw Self.failure("cannot load the system's trust store")
            }
        }
        switch (configuration.certificatePath, configuration.privateKeyPath) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw Self.failure("cannot load client certificate \(certificate)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                throw Self.failure("cannot load client private key \(key)")
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw Self.failure("client private key \(key) does not match the certificate")
            }
        default:
            throw Self.failure("a client certificate needs its private key, and a private key its certificate")
        }
    }

    deinit { SSL_CTX_free(context) }

    private static func failure(_ what: String) -> RedisFailure {
        let detail = OpenSSLErrorQueue.drain()
        return .connection("tls: \(what)" + (detail.isEmpty ? "" : ": \(detail)"))
    }
}
