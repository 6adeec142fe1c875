import Basics
public import Crypto

/// Signing of arbitrary compact JWS values, for JWTs whose shape is not an App Check token's (for example the
/// ES256 bearer tokens Apple's DeviceCheck API asks for).
public enum JWS {
    /// `base64url(header) . base64url(claims) . base64url(signature)`, signed by `key` with its algorithm.
    /// - Parameters:
    ///   - header: the protected header's JSON; its `alg` must be `key.algorithm.jwsName` for verifiers to agree.
    ///   - claims: the payload's JSON.
    public static func sign(header: String, claims: String, with key: PrivateKey) throws(PrivateKeyError) -> String {
        var token = [UInt8]()
        Base64.url.append(Array(header.utf8), to: &token)
        token.append(UInt8(ascii: "."))
        Base64.url.append(Array(claims.utf8), to: &token)
        let signature = try key.sign(token)
        token.append(UInt8(ascii: "."))
        Base64.url.append(signature, to: &token)
        return String(decoding: token, as: UTF8.self)
    }
}
