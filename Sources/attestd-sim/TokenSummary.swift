import AppAttest
import Basics
import FoundationEssentials

/// What a person wants to see of an App Check token: its header and claims, decoded (not verified: attestd's
/// JWKS is what a backend verifies against).
struct TokenSummary {
    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var sub: String?
        var aud: [String]?
        var iat: Int64?
        var exp: Int64?
        var jti: String?
    }

    /// Lines describing `token`: its header and every claim when `detailed`, else the claims that change from
    /// one token to the next.
    static func lines(_ token: String, detailed: Bool) -> [String] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.either.decode(parts[0]), let claimBytes = Base64.either.decode(parts[1]) else {
            return ["(not a compact JWS)"]
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else {
            return ["claims: \(String(decoding: claimBytes, as: UTF8.self))"]
        }
        let lifetime = "iat \(utc(claims.iat)), exp \(utc(claims.exp))"
        guard detailed else { return ["jti \(claims.jti ?? "-"), \(lifetime)"] }
        var lines: [String] = []
        if let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) {
            lines.append("header  alg \(header.alg ?? "?"), typ \(header.typ ?? "?"), kid \(header.kid ?? "?")")
        }
        lines.append("iss     \(claims.iss ?? "-")")
        lines.append("sub     \(claims.sub ?? "-")")
        lines.append("aud     \((claims.aud ?? []).joined(separator: ", "))")
        lines.append("iat     \(utc(claims.iat)), exp \(utc(claims.exp))")
        lines.append("jti     \(claims.jti ?? "-")")
        return lines
    }

    /// Unix seconds as `2026-11-29T16:20:50Z`.
    private static func utc(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        return RFC3339.format(unixSeconds: seconds)
    }
}
