import TLS

extension RedisTLSConfiguration {
    /// The TLS module's client context for this configuration: the server always verified, no ALPN.
    func clientContext() throws(RedisFailure) -> TLSClientContext {
        do throws(TLSError) {
            return try TLSClientContext(TLSClientConfiguration(
                caFilePath: caFilePath, certificatePath: certificatePath, privateKeyPath: privateKeyPath))
        } catch {
            throw .connection("tls: \(error.message)")
        }
    }
}
