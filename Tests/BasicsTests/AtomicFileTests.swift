import Basics
import Foundation
import Testing

@Suite("Atomic file writes")
struct AtomicFileTests {
    private func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attestd-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("replaces a file whole, with exactly the mode asked for, and leaves no temporary file")
    func replaces() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/key.pem"
        try AtomicFile.write("first", to: path, mode: 0o644)
        #expect(try mode(path) == 0o644)
        try AtomicFile.write("second", to: path, mode: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
        #expect(try mode(path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["key.pem"])
    }

    @Test("refuses to write through a link planted at the temporary name, and leaves both files as they were")
    func plantedLink() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/key.pem"
        let victim = folder + "/victim"
        try "untouched".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp-\(getpid())", withDestinationPath: victim)
        let failure = #expect(throws: AtomicFile.WriteFailure.self) { try AtomicFile.write("secret", to: path, mode: 0o600) }
        #expect(failure?.description.contains(".tmp-\(getpid())") == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("names the path when the directory does not exist")
    func missingDirectory() {
        let failure = #expect(throws: AtomicFile.WriteFailure.self) {
            try AtomicFile.write("x", to: "/nonexistent/attestd/key.pem", mode: 0o600)
        }
        #expect(failure?.description.contains("/nonexistent/attestd/key.pem") == true)
    }
}
