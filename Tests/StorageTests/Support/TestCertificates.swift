import Foundation

/// Certificates for TLS tests, made with the openssl CLI in a temporary directory: a CA, a server certificate it
/// signed for `localhost` and 127.0.0.1, a client certificate it signed, and an unrelated CA with a server
/// certificate of its own (for the same names).
final class TestCertificates: Sendable {
    struct Pair: Sendable {
        let certificate: String
        let key: String
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    let directory: TemporaryDirectory
    let caFile: String
    let otherCAFile: String
    let server: Pair
    let client: Pair
    /// Signed by the other CA.
    let otherServer: Pair

    init() throws {
        let directory = try TemporaryDirectory("tls")
        self.directory = directory
        caFile = try Self.authority("ca", in: directory)
        otherCAFile = try Self.authority("other-ca", in: directory)
        let names = "subjectAltName=DNS:localhost,IP:127.0.0.1"
        server = try Self.leaf("server", signedBy: "ca", extensions: names, in: directory)
        client = try Self.leaf("client", signedBy: "ca", extensions: "extendedKeyUsage=clientAuth", in: directory)
        otherServer = try Self.leaf("other-server", signedBy: "other-ca", extensions: names, in: directory)
    }

    private static func authority(_ name: String, in directory: TemporaryDirectory) throws -> String {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=attestd test \(name)",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                    in: directory)
        return directory.file("\(name).pem")
    }

    private static func leaf(_ name: String, signedBy authority: String, extensions: String,
                             in directory: TemporaryDirectory) throws -> Pair {
        try Data((extensions + "\n").utf8).write(to: URL(fileURLWithPath: directory.file("\(name).ext")))
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)"], in: directory)
        try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(authority).pem", "-CAkey", "\(authority).key",
                     "-CAcreateserial", "-days", "2", "-extfile", "\(name).ext", "-out", "\(name).pem"], in: directory)
        return Pair(certificate: directory.file("\(name).pem"), key: directory.file("\(name).key"))
    }

    private static func openssl(_ arguments: [String], in directory: TemporaryDirectory) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}
