import Basics
import Glibc

/// The file system calls the simulator's persistence needs: whole-file reads, and writes that land atomically
/// (a temporary name, fsync, rename) with the mode asked for, so a key is never readable by others, even briefly.
enum SimulatorFiles {
    /// Private keys and key files: owner only.
    static let privateMode: mode_t = 0o600
    /// Certificates: anyone may read them.
    static let publicMode: mode_t = 0o644

    static func path(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Creates `directory` (0700), and any missing parents (0700 too: `.keys` holds other secrets), unless it
    /// exists; true when it was created.
    @discardableResult
    static func makeDirectory(_ directory: String) throws(SimulatorFileError) -> Bool {
        var status = stat()
        if stat(directory, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw SimulatorFileError.notADirectory.with(detail: directory) }
            return false
        }
        var parent = directory
        while parent.hasSuffix("/") { parent.removeLast() }
        if let slash = parent.lastIndex(of: "/"), slash != parent.startIndex {
            try makeDirectory(String(parent[..<slash]))
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw SimulatorFileError.cannotWrite.with(detail: "\(directory): \(reason())")
        }
        return true
    }

    static func read(_ path: String) throws(SimulatorFileError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SimulatorFileError.cannotRead.with(detail: "\(path): \(reason())") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SimulatorFileError.cannotRead.with(detail: "\(path): \(reason())") }
            if count == 0 { break }
            bytes += buffer[0..<count]
            // The simulator's files are a few kilobytes; anything much larger is not one of them.
            guard bytes.count <= 1 << 20 else { throw SimulatorFileError.malformed.with(detail: "\(path): larger than 1 MiB") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces `path` with `text` atomically, the new file having `mode`.
    static func write(_ text: String, to path: String, mode: mode_t) throws(SimulatorFileError) {
        do {
            try AtomicFile.write(text, to: path, mode: mode)
        } catch {
            throw SimulatorFileError.cannotWrite.with(detail: error.description)
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
