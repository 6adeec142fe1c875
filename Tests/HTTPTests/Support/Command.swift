import Foundation

/// Runs a command-line tool (openssl, curl) and returns its exit status and standard output.
enum Command {
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A self-signed certificate and key for 127.0.0.1 in a fresh temporary directory.
    static func selfSignedCertificate() throws -> (certificate: String, key: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httptests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let result = try run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ])
        guard result.status == 0 else { throw TestSocket.Failure(description: "openssl req failed") }
        return (certificate, key)
    }
}
