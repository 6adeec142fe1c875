#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Basics
import Synchronization

/// A structured logger: each record is one JSON object on one line of standard error, so that log shippers can
/// read it without a grammar. A logger is a cheap value; `with(_:_:)` adds metadata such as a request id.
public struct Logger: Sendable {
    /// The lowest level written, shared by every logger of the process (set once from the configuration).
    public static var minimumLevel: LogLevel {
        get { LogLevel(rawValue: Int(globalLevel.load(ordering: .relaxed)))! }
        set { globalLevel.store(newValue.rawValue, ordering: .relaxed) }
    }

    public let label: String
    public private(set) var metadata: [(String, String)]

    public init(label: String, metadata: [(String, String)] = []) {
        self.label = label
        self.metadata = metadata
    }

    /// A copy of this logger that adds `key: value` to every record.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    public func isEnabled(_ level: LogLevel) -> Bool { level >= Logger.minimumLevel }

    public func trace(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.trace, message(), fields())
    }
    public func debug(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.debug, message(), fields())
    }
    public func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.info, message(), fields())
    }
    public func notice(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.notice, message(), fields())
    }
    public func warning(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.warning, message(), fields())
    }
    public func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.error, message(), fields())
    }

    /// Writes one record if `level` is enabled. The message and fields are only built when it is.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard isEnabled(level) else { return }
        var line = "{\"ts\":\""
        line += Logger.timestamp()
        line += "\",\"level\":\"\(level.name)\",\"logger\":"
        JSONString.append(label, to: &line)
        line += ",\"msg\":"
        JSONString.append(message(), to: &line)
        for (key, value) in metadata + fields() {
            line += ","
            JSONString.append(key, to: &line)
            line += ":"
            JSONString.append(value, to: &line)
        }
        line += "}\n"
        LogSink.write(line)
    }

    private static let globalLevel = Atomic<Int>(LogLevel.info.rawValue)

    /// RFC 3339 UTC time with milliseconds, from the wall clock.
    static func timestamp() -> String {
        let now = TimeSource.system.unixNanoseconds()
        return RFC3339.format(
            unixSeconds: now / 1_000_000_000, nanoseconds: Int32(now % 1_000_000_000), fraction: .milliseconds)
    }
}

/// Standard error, written one whole line at a time so that records from several threads never interleave.
enum LogSink {
    private static let lock = Mutex(())

    static func write(_ line: String) {
        lock.withLock { _ in
            var line = line
            line.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { if errno == EINTR { continue } else { return } }
                    offset += written
                }
            }
        }
    }
}
