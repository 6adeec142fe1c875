import Glibc

/// A file replaced whole or not at all: the text goes to a temporary file beside it, is synced, then renamed over
/// the path, so a reader (or a crash) never sees half a key or certificate.
package enum AtomicFile {
    /// Why a write failed: the path and the system's reason.
    package struct WriteFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Replaces `path` with `text`; the new file has exactly `mode`, whatever the umask.
    ///
    /// The temporary file is created exclusively and never through a symbolic link, so nobody who can write to the
    /// directory can have a secret written into a file of theirs.
    package static func write(_ text: String, to path: String, mode: UInt32) throws(WriteFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw WriteFailure(description: "\(temporary): \(reason())") }
        _ = fchmod(descriptor, mode)
        var text = text
        let complete = text.withUTF8 { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard complete, synced, rename(temporary, path) == 0 else {
            let why = reason()
            unlink(temporary)
            throw WriteFailure(description: "\(path): \(why)")
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
