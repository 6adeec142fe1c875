import Foundation

/// A fresh directory under the system's temporary directory, removed when this value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    /// - Parameter parent: where to make it instead of the system's temporary directory (which may be a tmpfs).
    init(_ label: String, under parent: String? = nil) throws {
        let base = parent.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        path = base.appendingPathComponent("attestd-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}
