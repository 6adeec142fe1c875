#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to the standard streams, for command output and usage errors.
enum FileHandleOutput {
    static func standardOutput(_ text: String) { write(text, to: 1) }
    static func standardError(_ text: String) { write(text, to: 2) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
