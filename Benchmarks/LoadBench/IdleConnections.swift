import Basics
import CShimsLinux
import Glibc
import HTTP

/// The idle-connection check: open many HTTP/2 connections that exchange SETTINGS and then say nothing, and read
/// the server's resident memory (from /proc, so the server must run on this machine) before, and after they have
/// been quiet for ``quietSeconds``.
struct IdleConnectionsReport: Sendable {
    var requested: Int
    var opened: Int
    var serverRSSBeforeBytes: Int
    var serverRSSAfterBytes: Int
    var seconds: Double
    /// With a first request: how many connections got an OK answer to it before going quiet.
    var answered: Int?

    static let quietSeconds = 3.0

    var perConnectionBytes: Double {
        opened > 0 ? Double(serverRSSAfterBytes - serverRSSBeforeBytes) / Double(opened) : 0
    }

    /// A request each connection sends once, before it goes quiet (`--idle-after-request`): a connection that has
    /// served a request holds more than one that only exchanged SETTINGS.
    struct FirstRequest {
        var job: Job
        var headers: HTTP2RequestHeaders
        var framing: Framing
    }

    static func measure(
        count: Int, host: String, port: Int, tls: ClientTLS?, serverPID: Int32, firstRequest: FirstRequest? = nil
    ) -> IdleConnectionsReport {
        let before = residentBytes(pid: serverPID)
        let start = MonotonicClock.nanoseconds()
        var connections: [H2ClientConnection] = []
        connections.reserveCapacity(count)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        for index in 0..<count {
            guard let connection = try? H2ClientConnection(host: host, port: port, tls: tls) else { break }
            if let firstRequest {
                _ = connection.submit(firstRequest.job, scheduled: MonotonicClock.nanoseconds(), headers: firstRequest.headers)
            }
            connection.flush()
            connections.append(connection)
            // Read the server's SETTINGS now and then, so no socket buffer fills while the rest connect.
            if index % 500 == 499 { for connection in connections.suffix(500) { connection.readAvailable(buffer: buffer) } }
        }
        // Let the server finish its side of every handshake, then answer its SETTINGS with ACKs.
        usleep(500_000)
        for connection in connections {
            connection.readAvailable(buffer: buffer)
            connection.flush()
        }
        // Then quiet for a few seconds, as idle connections are: a server may trim what a connection holds only
        // once it has been quiet a while (attestd after a second, at its next once-a-second look).
        usleep(UInt32(quietSeconds * 1_000_000))
        let after = residentBytes(pid: serverPID)
        let seconds = MonotonicTime.seconds(MonotonicClock.nanoseconds() - start)
        let answered = firstRequest.map { request in
            connections.reduce(0) { total, connection in
                total + connection.takeFinished().filter { $0.2.isOK(framing: request.framing) }.count
            }
        }
        return IdleConnectionsReport(requested: count, opened: connections.filter { !$0.isClosed }.count,
                                     serverRSSBeforeBytes: before, serverRSSAfterBytes: after, seconds: seconds,
                                     answered: answered)
    }

    /// VmRSS of a process, in bytes (0 if it cannot be read).
    static func residentBytes(pid: Int32) -> Int {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") {
                let digits = text.dropFirst(6).filter { $0.isNumber }
                return (Int(digits) ?? 0) * 1024
            }
        }
        return 0
    }

    /// The process id in a file (as a shell's `echo $!` writes it), waiting briefly for the file to appear.
    static func pid(fromFile path: String) -> Int32? {
        for _ in 0..<100 {
            if let file = fopen(path, "r") {
                defer { fclose(file) }
                var value: Int32 = 0
                if fscanf_int(file, &value), value > 0 { return value }
            }
            usleep(50_000)
        }
        return nil
    }

    private static func fscanf_int(_ file: UnsafeMutablePointer<FILE>, _ value: inout Int32) -> Bool {
        var line = [CChar](repeating: 0, count: 32)
        guard fgets(&line, Int32(line.count), file) != nil else { return false }
        let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let parsed = Int32(text) else { return false }
        value = parsed
        return true
    }
}
