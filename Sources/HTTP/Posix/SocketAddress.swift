import Glibc

/// A numeric IPv4 or IPv6 socket address, parsed from a listener's host and port.
struct SocketAddress {
    private(set) var storage = sockaddr_storage()
    let length: socklen_t
    let family: Int32

    init?(host: String, port: Int) {
        guard (0...65_535).contains(port) else { return nil }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &storage) { raw in raw.storeBytes(of: v4, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
            return
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &storage) { raw in raw.storeBytes(of: v6, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
            return
        }
        return nil
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// `host:port` for an address filled in by accept or getsockname (IPv6 hosts in brackets).
    static func describe(_ storage: sockaddr_storage) -> (host: String, port: Int) {
        var copy = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(copy.ss_family) {
        case AF_INET:
            let v4 = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in.self) }
            var address = v4.sin_addr
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            return (String(nulTerminated: text), Int(UInt16(bigEndian: v4.sin_port)))
        case AF_INET6:
            let v6 = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in6.self) }
            var address = v6.sin6_addr
            inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            return ("[" + String(nulTerminated: text) + "]", Int(UInt16(bigEndian: v6.sin6_port)))
        default:
            return ("unknown", 0)
        }
    }
}
