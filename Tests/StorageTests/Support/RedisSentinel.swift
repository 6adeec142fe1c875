import Foundation
import Glibc

/// A real Redis Sentinel (`redis-server --sentinel`) on a free loopback port, monitoring one master under `name`
/// with a quorum of 1 and a 500 ms down-after, so a killed master is failed over within seconds. Stopped when
/// released.
final class RedisSentinel: @unchecked Sendable {
    let port: Int
    private let directory: TemporaryDirectory
    private var process: Process?

    init(monitoring masterPort: Int, name: String) throws {
        guard let executable = RedisServer.executable else { throw RedisServer.Missing() }
        port = try RedisServer.freePort()
        directory = try TemporaryDirectory("sentinel")
        // Sentinel rewrites its configuration file as it learns the topology, so it gets a writable one of its own.
        let configuration = directory.file("sentinel.conf")
        try """
            port \(port)
            bind 127.0.0.1
            dir \(directory.path)
            sentinel monitor \(name) 127.0.0.1 \(masterPort) 1
            sentinel down-after-milliseconds \(name) 500
            sentinel failover-timeout \(name) 5000
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [configuration, "--sentinel", "--loglevel", "warning"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        for _ in 0..<500 {
            if (try? cli(["PING"])) == "PONG" { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        stop()
        throw RedisServer.NotReady(description: "redis sentinel did not start on port \(port)")
    }

    deinit { stop() }

    func stop() {
        RedisServer.kill(&process)
    }

    /// Runs one command against the sentinel with redis-cli and returns its output.
    func cli(_ command: [String]) throws -> String {
        try RedisServer.cli(port: port, command, standardError: FileHandle.nullDevice)
    }
}
