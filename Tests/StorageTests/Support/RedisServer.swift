import Foundation
import Glibc

/// A real `redis-server` on a free loopback port, in its own directory, stopped when released. Tests that need one
/// fail (never skip) when it is not installed: `make test` installs it through scripts/install-deps.sh.
final class RedisServer: @unchecked Sendable {
    struct Missing: Error, CustomStringConvertible {
        let description = "redis-server is not installed (not found on PATH): run `make test`, or "
            + "scripts/install-deps.sh, which installs the redis-server package"
    }

    struct NotReady: Error, CustomStringConvertible {
        let description: String
    }

    /// TLS instead of plain TCP on the port: the server's certificate and key, and the CA its clients' certificates
    /// must come from when `requireClientCertificates`.
    struct TLS {
        let certificate: String
        let key: String
        let caFile: String
        var requireClientCertificates = false
        /// What redis-cli presents, when the server requires a client certificate.
        var client: (certificate: String, key: String)?
    }

    let port: Int
    let directory: TemporaryDirectory
    private let arguments: [String]
    private let tls: TLS?
    /// The password every client (and, in a cluster, every replica) must give; redis-cli gives it.
    let password: String?
    private var process: Process?

    /// - Parameters:
    ///   - persistent: keep data across a restart with an fsynced append-only file; otherwise nothing is saved.
    ///   - arguments: more `redis-server` options, e.g. `["--requirepass", "secret"]`.
    ///   - tls: serve TLS only (the plain port is off).
    ///   - password: required of every client (`--requirepass`) and given to a primary by a replica
    ///     (`--masterauth`); `cli` sends it.
    init(persistent: Bool = false, arguments: [String] = [], tls: TLS? = nil, password: String? = nil) throws {
        let port = try Self.freePort()
        self.port = port
        self.tls = tls
        self.password = password
        directory = try TemporaryDirectory("redis")
        let persistence = persistent
            ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
            : ["--appendonly", "no", "--save", ""]
        let listening = tls.map { tls in
            ["--port", "0", "--tls-port", String(port), "--tls-cert-file", tls.certificate, "--tls-key-file", tls.key,
             "--tls-ca-cert-file", tls.caFile, "--tls-auth-clients", tls.requireClientCertificates ? "yes" : "no"]
        } ?? ["--port", String(port)]
        self.arguments = listening + ["--bind", "127.0.0.1", "--dir", directory.path, "--daemonize", "no",
                          "--loglevel", "warning"] + persistence
            + (password.map { ["--requirepass", $0, "--masterauth", $0] } ?? []) + arguments
        try start()
    }

    deinit { stop() }

    static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin"]
        return directories.map { $0 + "/redis-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the server (again, on the same port and directory) and waits until it accepts connections.
    func start() throws {
        guard let executable = Self.executable else { throw Missing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Ready means accepting and no longer loading: a server that accepts connections may still be loading its
        // append-only file and answer LOADING to every command until it is done. (Any other answer counts, since
        // some tests start servers that refuse this client on purpose: a password, a certificate.)
        for _ in 0..<500 {
            if Self.accepts(port), !((try? cli(["PING"])) ?? "LOADING").contains("LOADING") { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        stop()
        throw NotReady(description: "redis-server did not start on port \(port)")
    }

    /// Kills the server (SIGKILL, a crash: with `persistent` every acknowledged write is already fsynced) and waits
    /// for it to exit. Not SIGTERM: the child inherits the test thread's signal mask, in which SIGTERM is blocked.
    func stop() {
        Self.kill(&process)
    }

    /// SIGKILLs `process` if it still runs, waits for it to exit, and forgets it.
    static func kill(_ process: inout Process?) {
        guard let running = process, running.isRunning else { return }
        Glibc.kill(running.processIdentifier, SIGKILL)
        running.waitUntilExit()
        process = nil
    }

    /// Runs one command with redis-cli (installed with redis-server) and returns its output.
    func cli(_ command: [String]) throws -> String {
        try Self.cli(port: port, options: cliOptions, command)
    }

    /// What redis-cli needs to reach this server: TLS options, and the password.
    var cliOptions: [String] {
        let secure = tls.map { tls in
            ["--tls", "--cacert", tls.caFile] + (tls.client.map { ["--cert", $0.certificate, "--key", $0.key] } ?? [])
        } ?? []
        return secure + (password.map { ["-a", $0, "--no-auth-warning"] } ?? [])
    }

    /// Runs one command with redis-cli against `port`, `options` before it, and returns its output; the tool's
    /// standard error goes to `standardError` (nil: this process's).
    static func cli(
        port: Int, options: [String] = [], _ command: [String], standardError: FileHandle? = nil
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(port)] + options + command
        let output = Pipe()
        process.standardOutput = output
        if let standardError { process.standardError = standardError }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A port nobody listens on now: bound to port 0, read back, released.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw NotReady(description: "cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
