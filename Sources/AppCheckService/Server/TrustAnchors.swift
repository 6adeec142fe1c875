import AppAttest
import Basics
import Crypto
import Foundation
import Observability

/// The roots attestations and receipts chain to: Apple's pinned roots, plus any extra roots the configuration
/// (or `--extra-trust-root`) names for development and tests. Every extra root is announced with a warning at
/// start, so no production node trusts a test root silently.
enum TrustAnchors {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func appAttest(extraPaths: [String], logger: Logger) throws -> [[UInt8]] {
        AppleRoots.appAttestationRootDER + (try extra(extraPaths, kind: "App Attest", logger: logger))
    }

    static func receipts(extraPaths: [String], logger: Logger) throws -> [[UInt8]] {
        AppleRoots.rootCAG3DER + (try extra(extraPaths, kind: "receipt", logger: logger))
    }

    private static func extra(_ paths: [String], kind: String, logger: Logger) throws -> [[UInt8]] {
        try paths.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw Problem(description: "\(path): cannot be read (for the simulator's roots, run `make run` or `attestd-sim init`)")
            }
            guard let der = PEMCertificate.der(fromPEM: text) else {
                throw Problem(description: "\(path): not a PEM certificate")
            }
            logger.warning("trusting an extra \(kind) root: this node accepts objects that Apple did not sign",
                           [("path", path), ("sha256", Hex.string(SHA256.hash(der)))])
            return der
        }
    }
}

/// The DER inside a PEM `CERTIFICATE` block.
enum PEMCertificate {
    static func der(fromPEM text: String) -> [UInt8]? {
        let lines = text.split(whereSeparator: \.isNewline)
        guard let begin = lines.firstIndex(of: "-----BEGIN CERTIFICATE-----"),
              let end = lines[begin...].firstIndex(of: "-----END CERTIFICATE-----") else { return nil }
        return Base64.standard.decode(lines[(begin + 1)..<end].joined())
    }
}
