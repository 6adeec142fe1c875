import Foundation

/// Runs the `attestd` binary built beside the test bundle and captures what it printed.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    static let binary: URL = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("attestd")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundleDirectory.appendingPathComponent("attestd")
    }()

    /// Apple's guide vector, shared with the AppAttest tests.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AppAttestTests/Fixtures")

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe(), error = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    /// Writes `contents` to a fresh temporary file and returns its path.
    static func temporaryFile(_ contents: Data, suffix: String = "") throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("attestd-cli-\(UUID().uuidString)\(suffix)")
        try contents.write(to: url)
        return url.path
    }
}
