import AppAttest
import Basics
import Foundation
import Testing

/// A fresh directory under the system's temporary directory for one test, and PEM helpers for what is saved there.
enum TemporaryDirectory {
    /// A new, empty directory (0700).
    static func make() -> String {
        var template = Array((NSTemporaryDirectory() + "attestd-sim-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER of the first certificate in the PEM file at `path`.
    static func certificateDER(_ path: String) throws -> [UInt8] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let body = text.components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
            .components(separatedBy: "-----END CERTIFICATE-----")[0]
            .filter { !$0.isWhitespace }
        return try #require(Base64.either.decode(body))
    }

    /// The permission bits of `path`.
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
