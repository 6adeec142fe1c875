/// The CBOR envelope `generateAssertion` returns: `{signature: DER ECDSA, authenticatorData}`, decoded but not
/// verified.
public struct AssertionObject: Sendable {
    /// The DER ECDSA signature over the nonce.
    public let signature: [UInt8]
    /// The authenticator data (37 bytes, or more with iOS 27 extensions).
    public let authenticatorData: AuthenticatorData

    /// Decodes and checks the structure; no cryptography. Unknown keys are ignored.
    public init(_ encoded: [UInt8]) throws(AppAttestError) {
        let object: CBOR
        do {
            object = try CBOR.decode(encoded)
        } catch {
            throw AppAttestError(.malformed("assertion"), error.description)
        }
        guard case .map = object, let signature = object["signature"]?.bytesValue, !signature.isEmpty,
              let authData = object["authenticatorData"]?.bytesValue
        else {
            throw AppAttestError(.malformed("assertion"), "not a map of signature and authenticatorData byte strings")
        }
        self.signature = signature
        self.authenticatorData = try AuthenticatorData(assertion: authData)
    }
}
