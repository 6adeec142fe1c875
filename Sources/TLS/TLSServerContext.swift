internal import COpenSSL
internal import CShimsOpenSSL
import Crypto
import Glibc
public import Observability
import Synchronization

/// The server side of TLS for one listener, one SSL_CTX: TLS 1.2+, the configured certificate chain and key, ALPN
/// `h2` then `http/1.1`, kernel TLS asked for, and stateless session tickets under the configured ticket keys (see
/// `TLSSessionTicketKey`). OpenSSL's record layer protects every connection (``TLSServerStream``) from handshake to
/// close.
///
/// `@unchecked Sendable`: after `init` the context is only read (the counters are atomic) (OpenSSL's SSL_CTX is safe to
/// share between threads for creating SSL objects), and it is freed in `deinit` when no connection can still use it.
public final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Whether clients are asked for a certificate that chains to the listener's client CAs.
    public let verifiesClients: Bool
    /// Oldest first; the last protects new tickets.
    let ticketKeys: [TLSSessionTicketKey]
    private let handshakes = Atomic<Int>(0)
    private let resumedHandshakes = Atomic<Int>(0)
    private let kernelSendConnections = Atomic<Int>(0)
    private let kernelReceiveConnections = Atomic<Int>(0)
    private let firstHandshakeLogged = Atomic<Bool>(false)
    private let listenerName: String
    private let logger: Logger

    /// Loads the PEM certificate chain and key (blocking file I/O: call before the loops start). `listenerName` names
    /// the listener in errors and logs.
    public init(_ configuration: TLSConfiguration, listenerName: String, logger: Logger) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw Self.failure(listenerName, "SSL_CTX_new failed")
        }
        self.context = context
        self.listenerName = listenerName
        self.logger = logger
        ticketKeys = configuration.sessionTicketKeys.isEmpty ? [.random()] : configuration.sessionTicketKeys
        // Every stored property is set before the first throw below, so a failed init still runs deinit (which
        // frees the context).
        verifiesClients = configuration.clientCertificateAuthoritiesPath != nil
        _ = cshims_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = cshims_SSL_CTX_set_mode(context, cshims_SSL_MODE_http())
        // The kernel protects the records where it can (a TLS ULP, a cipher it knows); OpenSSL otherwise.
        _ = SSL_CTX_set_options(context, cshims_SSL_OP_ENABLE_KTLS)
        guard SSL_CTX_use_certificate_chain_file(context, configuration.certificatePath) == 1 else {
            throw Self.failure(listenerName, "cannot load certificate \(configuration.certificatePath)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, configuration.privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw Self.failure(listenerName, "cannot load private key \(configuration.privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw Self.failure(listenerName, "private key \(configuration.privateKeyPath) does not match the certificate")
        }
        var clientAuthorities: [UInt8] = []
        if let authorities = configuration.clientCertificateAuthoritiesPath {
            guard SSL_CTX_load_verify_locations(context, authorities, nil) == 1,
                  let names = SSL_load_client_CA_file(authorities),
                  let bytes = Self.contents(of: authorities)
            else {
                throw Self.failure(listenerName, "cannot load client certificate authorities \(authorities)")
            }
            clientAuthorities = bytes
            // Ownership of the name list passes to the context: the CAs a client is told it may present.
            SSL_CTX_set_client_CA_list(context, names)
            // Asked for, not required: callers that carry a bearer token (and Prometheus) connect without one.
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            SSL_CTX_set_verify_depth(context, 4)
        }
        SSL_CTX_set_alpn_select_cb(context, selectALPN, nil)
        // Sessions travel in tickets only: nothing is cached per session on the server, and any node with the ticket
        // keys resumes any other's. A ticket carries the client certificate verified in its full handshake, so it
        // resumes only where the same client CAs are trusted: the session id context is their hash (the same on
        // every node of a cluster, and OpenSSL refuses resumption without one when it verifies clients).
        _ = cshims_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        let sessionContext = SHA256.hash(Array("attestd TLS listener client CAs\n".utf8) + clientAuthorities)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        _ = SSL_CTX_set_num_tickets(context, 2)
        _ = SSL_CTX_set_ex_data(context, 0, Unmanaged.passUnretained(self).toOpaque())
        _ = SSL_CTX_set_tlsext_ticket_key_evp_cb(context, sessionTicketKeyCallback)
    }

    deinit { SSL_CTX_free(context) }

    /// Handshakes completed on this listener; of those, the resumed ones (a session ticket accepted), and the
    /// connections whose records the kernel protects (kTLS), as it sends and as it receives.
    public var handshakeCounts: (completed: Int, resumed: Int, kernelSend: Int, kernelReceive: Int) {
        (handshakes.load(ordering: .relaxed), resumedHandshakes.load(ordering: .relaxed),
         kernelSendConnections.load(ordering: .relaxed), kernelReceiveConnections.load(ordering: .relaxed))
    }

    /// Counts a completed handshake, and logs the first one on this listener: whether it resumed and whether the
    /// kernel took the records.
    func noteHandshake(resumed: Bool, kernelSend: Bool, kernelReceive: Bool, version: String) {
        handshakes.add(1, ordering: .relaxed)
        if resumed { resumedHandshakes.add(1, ordering: .relaxed) }
        if kernelSend { kernelSendConnections.add(1, ordering: .relaxed) }
        if kernelReceive { kernelReceiveConnections.add(1, ordering: .relaxed) }
        guard !firstHandshakeLogged.exchange(true, ordering: .relaxed) else { return }
        logger.info("first TLS handshake on the listener", [
            ("listener", listenerName), ("version", version),
            ("kernelTLSSend", kernelSend ? "yes" : "no"), ("kernelTLSReceive", kernelReceive ? "yes" : "no"),
        ])
    }

    /// The ticket key whose name a ticket carries.
    fileprivate func ticketKey(named name: UnsafePointer<UInt8>) -> (key: TLSSessionTicketKey, isNewest: Bool)? {
        for (index, key) in ticketKeys.enumerated().reversed()
        where key.name.elementsEqual(UnsafeBufferPointer(start: name, count: 16)) {
            return (key, index == ticketKeys.count - 1)
        }
        return nil
    }

    /// The bytes of a small file (a PEM bundle), or nil if it cannot be read.
    private static func contents(of path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[0..<count]
            if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }

    private static func failure(_ listenerName: String, _ what: String) -> TLSError {
        SSLOutcome.setupFailure("listener \(listenerName): \(what)")
    }
}

/// OpenSSL's session ticket key callback (SSL_CTX_set_tlsext_ticket_key_evp_cb): keys AES-256-CBC and HMAC-SHA256
/// for a ticket OpenSSL is about to write (`encrypt` 1: the newest key, a fresh IV) or has received (0: the key its
/// name says). Returns 1 (done), 2 (done; the ticket's key is an older one, so OpenSSL issues a new ticket), 0 (no
/// such key: a full handshake) or -1 (failure).
private func sessionTicketKeyCallback(
    _ ssl: OpaquePointer?, _ keyName: UnsafeMutablePointer<UInt8>?, _ iv: UnsafeMutablePointer<UInt8>?,
    _ cipher: OpaquePointer?, _ mac: OpaquePointer?, _ encrypt: Int32
) -> Int32 {
    guard let ssl, let keyName, let iv, let cipher, let mac, let sslContext = SSL_get_SSL_CTX(ssl),
          let owner = SSL_CTX_get_ex_data(sslContext, 0)
    else { return -1 }
    let context = Unmanaged<TLSServerContext>.fromOpaque(owner).takeUnretainedValue()
    let chosen: (key: TLSSessionTicketKey, isNewest: Bool)
    if encrypt == 1 {
        guard let newest = context.ticketKeys.last, RAND_bytes(iv, 16) == 1 else { return -1 }
        newest.name.withUnsafeBufferPointer { keyName.update(from: $0.baseAddress!, count: 16) }
        chosen = (newest, true)
    } else {
        guard let found = context.ticketKey(named: keyName) else { return 0 }
        chosen = found
    }
    let keyed: Bool = "key".withCString { keyParameter in
        "digest".withCString { digestParameter in
            "SHA256".withCString { digest in
                chosen.key.macKey.withUnsafeBytes { macKey in
                    var parameters = [
                        OSSL_PARAM_construct_octet_string(keyParameter, UnsafeMutableRawPointer(mutating: macKey.baseAddress), macKey.count),
                        OSSL_PARAM_construct_utf8_string(digestParameter, UnsafeMutablePointer(mutating: digest), 0),
                        OSSL_PARAM_construct_end(),
                    ]
                    return EVP_MAC_CTX_set_params(mac, &parameters) == 1
                }
            }
        }
    }
    guard keyed else { return -1 }
    let initialized = chosen.key.encryptionKey.withUnsafeBufferPointer { key in
        encrypt == 1
            ? EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), nil, key.baseAddress, iv)
            : EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), nil, key.baseAddress, iv)
    }
    guard initialized == 1 else { return -1 }
    return chosen.isNewest ? 1 : 2
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
