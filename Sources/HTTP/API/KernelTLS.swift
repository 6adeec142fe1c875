import Glibc

/// Whether this kernel can take TLS records over from OpenSSL (kTLS): OpenSSL attaches the kernel's TLS ULP to each
/// connection after its handshake, and falls back to its own record layer when the kernel refuses.
public enum KernelTLS {
    /// Tries what OpenSSL will try, once: attaches the `tls` ULP to a loopback TCP connection (which also loads the
    /// kernel's module when it has one). `detail` says why not, with the ULPs the kernel lists
    /// (`/proc/sys/net/ipv4/tcp_available_ulp`).
    public static func probe() -> (offered: Bool, detail: String) {
        let listed = availableULPs()
        let listing = "tcp_available_ulp: " + (listed ?? "unreadable")
        guard let address = SocketAddress(host: "127.0.0.1", port: 0) else { return (false, listing) }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer {
            if client >= 0 { Glibc.close(client) }
            if listener >= 0 { Glibc.close(listener) }
        }
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        guard listener >= 0, client >= 0,
              address.withSockAddr({ bind(listener, $0, $1) }) == 0, listen(listener, 1) == 0,
              withUnsafeMutableBytes(of: &bound, { getsockname(listener, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &boundLength) }) == 0,
              withUnsafeBytes(of: bound, { connect(client, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), boundLength) }) == 0
        else { return (false, "could not try (\(Posix.describe(errno))); " + listing) }
        // The ULP attaches only to a connected socket; the connection need not be accepted.
        let attached = "tls".withCString { setsockopt(client, Int32(IPPROTO_TCP), TCP_ULP, $0, 3) }
        if attached == 0 { return (true, "the tls ULP attaches; " + listing) }
        return (false, "the tls ULP does not attach (\(Posix.describe(errno))); " + listing)
    }

    private static func availableULPs() -> String? {
        guard let file = fopen("/proc/sys/net/ipv4/tcp_available_ulp", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), file) != nil else { return "" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingSuffix(while: { $0 == "\n" || $0 == " " })
    }
}

private extension String {
    func trimmingSuffix(while drop: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, drop(last) { text.removeLast() }
        return text
    }
}
