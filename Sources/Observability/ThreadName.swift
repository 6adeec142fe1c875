import Glibc

/// Names the calling thread, as `top -H`, `ps -L`, `perf` and debuggers show it. Without names every thread of the
/// server shows as "attestd", and a profile cannot tell an event loop from a verifier.
public enum ThreadName {
    /// The kernel keeps the first 15 bytes. Glibc's module has no `pthread_setname_np`, and the kernel takes the
    /// name from this file too.
    public static func setCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The calling thread's name ("" if it cannot be read).
    public static var current: String {
        guard let file = fopen("/proc/thread-self/comm", "r") else { return "" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 32)
        guard fgets(&line, Int32(line.count), file) != nil else { return "" }
        return String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
