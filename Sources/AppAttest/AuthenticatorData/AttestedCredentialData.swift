/// The attested credential data of an attestation's authenticator data: aaguid, credential ID and public key.
public struct AttestedCredentialData: Sendable {
    /// 16 bytes naming the environment (`appattest` + zeros, or `appattestdevelop`).
    public let aaguid: [UInt8]
    /// The credential ID, which App Attest sets to the keyId (32 bytes).
    public let credentialID: [UInt8]
    /// The credential public key.
    public let publicKey: COSEKey
    /// The index just after the COSE key.
    let end: Int

    init(_ bytes: [UInt8], from start: Int) throws(AppAttestError) {
        guard bytes.count >= start + 18 else {
            throw AppAttestError(.malformed("authData.attestedCredentialData"), "truncated before the credential ID")
        }
        aaguid = Array(bytes[start..<start + 16])
        let length = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        let idStart = start + 18
        guard bytes.count >= idStart + length else {
            throw AppAttestError(.malformed("authData.credentialId"), "a \(length)-byte credential ID runs past the end")
        }
        credentialID = Array(bytes[idStart..<idStart + length])
        let (key, end) = try COSEKey.decodePrefix(bytes[(idStart + length)...])
        publicKey = key
        self.end = end
    }
}
