import Glibc

/// Lines written straight to a file descriptor, unbuffered, so progress shows while a run goes on even when
/// standard output is a pipe (and no C `FILE *` global is touched from Swift 6 code).
enum Console {
    static func line(_ text: String) { write(1, text + "\n") }
    static func error(_ text: String) { write(2, text + "\n") }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }
}
