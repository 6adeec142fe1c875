import Foundation

/// Throwaway certificates made with the openssl command: a self-signed one for 127.0.0.1 and a second, unrelated key.
struct Certificates {
    let certificate: String
    let key: String
    let otherKey: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tlstests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificate = directory.appendingPathComponent("cert.pem").path
        key = directory.appendingPathComponent("key.pem").path
        otherKey = directory.appendingPathComponent("other-key.pem").path
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key,
            "-out", certificate,
        ])
        try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", otherKey])
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments[0]) failed") }
    }
}
