import AppAttest
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

    /// Indented lines describing `token`.
    static func lines(_ token: String) -> [String] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decode(parts[0]), let claimBytes = Base64.decode(parts[1]) else {
            return ["(not a compact JWS)"]
        }
        var lines: [String] = []
        if let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) {
            lines.append("header: alg \(header.alg ?? "?"), typ \(header.typ ?? "?"), kid \(header.kid ?? "?")")
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else {
            lines.append("claims: \(String(decoding: claimBytes, as: UTF8.self))")
            return lines
        }
        lines.append("iss: \(claims.iss ?? "-")")
        lines.append("sub: \(claims.sub ?? "-")")
        lines.append("aud: \((claims.aud ?? []).joined(separator: ", "))")
        if let iat = claims.iat, let exp = claims.exp {
            lines.append("iat: \(iat), exp: \(exp) (valid for \(exp - iat) s)")
        }
        lines.append("jti: \(claims.jti ?? "-")")
        return lines
    }
}
