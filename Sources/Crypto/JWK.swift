import Basics

/// A public JSON Web Key (RFC 7517) for a signing key: RSA (`n`, `e`) or EC P-256 (`crv`, `x`, `y`), every
/// binary member in unpadded base64url. `kid` is the key's RFC 7638 thumbprint.
public struct JWK: Sendable, Hashable {
    /// `RSA` or `EC`.
    public let kty: String
    /// Always `sig`: these keys only verify signatures.
    public let use: String
    /// `RS256` or `ES256`.
    public let alg: String
    /// The RFC 7638 thumbprint of the key, base64url.
    public let kid: String
    /// RSA modulus and public exponent (empty for EC keys).
    public let n: String
    public let e: String
    /// EC curve (`P-256`) and point coordinates (empty for RSA keys).
    public let crv: String
    public let x: String
    public let y: String

    /// An RSA key from its base64url modulus and exponent.
    public static func rsa(n: String, e: String) -> JWK {
        JWK(kty: "RSA", alg: SigningAlgorithm.rs256.jwsName, n: n, e: e, crv: "", x: "", y: "")
    }

    /// An EC P-256 key from its base64url coordinates.
    public static func p256(x: String, y: String) -> JWK {
        JWK(kty: "EC", alg: SigningAlgorithm.es256.jwsName, n: "", e: "", crv: "P-256", x: x, y: y)
    }

    private init(kty: String, alg: String, n: String, e: String, crv: String, x: String, y: String) {
        self.kty = kty
        self.use = "sig"
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
        let thumbprintInput = Self.thumbprintInput(kty: kty, n: n, e: e, crv: crv, x: x, y: y)
        self.kid = Base64.url.encode(SHA256.hash(Array(thumbprintInput.utf8)))
    }

    /// The key as a JSON object: `{"kty":…,"use":"sig","alg":…,"kid":…,"n":…,"e":…}` or with `crv`/`x`/`y`.
    /// Every value is a fixed name or base64url text, so none needs escaping.
    public var json: String {
        let common = "\"kty\":\"\(kty)\",\"use\":\"\(use)\",\"alg\":\"\(alg)\",\"kid\":\"\(kid)\""
        if kty == "RSA" { return "{\(common),\"n\":\"\(n)\",\"e\":\"\(e)\"}" }
        return "{\(common),\"crv\":\"\(crv)\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
    }

    /// RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
    static func thumbprintInput(kty: String, n: String, e: String, crv: String, x: String, y: String) -> String {
        kty == "RSA"
            ? "{\"e\":\"\(e)\",\"kty\":\"RSA\",\"n\":\"\(n)\"}"
            : "{\"crv\":\"\(crv)\",\"kty\":\"\(kty)\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"
    }
}
