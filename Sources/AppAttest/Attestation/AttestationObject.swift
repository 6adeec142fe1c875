/// The CBOR envelope `attestKey` returns: `{fmt: "apple-appattest", attStmt: {x5c: [leaf, intermediate], receipt},
/// authData}`, decoded but not yet verified.
public struct AttestationObject: Sendable {
    /// `fmt`, always `apple-appattest` once decoding succeeded.
    public let format: String
    /// `attStmt.x5c`: the credential certificate first, then the intermediate(s), as DER.
    public let certificateChainDER: [[UInt8]]
    /// `attStmt.receipt`: nil when the key is absent, possibly empty.
    public let receipt: [UInt8]?
    /// `authData`.
    public let authenticatorData: AuthenticatorData

    /// The format name App Attest uses.
    public static let appleFormat = "apple-appattest"

    /// Decodes and checks the structure; no cryptography.
    public init(_ encoded: [UInt8]) throws(AppAttestError) {
        let object: CBOR
        do {
            object = try CBOR.decode(encoded)
        } catch {
            throw AppAttestError(.malformed("attestationObject"), error.description)
        }
        guard case .map = object else {
            throw AppAttestError(.malformed("attestationObject"), "the top level is not a map")
        }
        guard let format = object["fmt"]?.textValue else {
            throw AppAttestError(.malformed("attestationObject"), "no text fmt")
        }
        guard format == Self.appleFormat else {
            throw AppAttestError(.unsupportedFormat, "fmt is \"\(format)\", not \"\(Self.appleFormat)\"")
        }
        guard let statement = object["attStmt"], case .map = statement else {
            throw AppAttestError(.malformed("attStmt"), "no attStmt map")
        }
        guard case .array(let chain)? = statement["x5c"], (1...4).contains(chain.count) else {
            throw AppAttestError(.malformed("attStmt.x5c"), "x5c is not an array of 1 to 4 certificates")
        }
        var certificates: [[UInt8]] = []
        for element in chain {
            guard let der = element.bytesValue, !der.isEmpty else {
                throw AppAttestError(.malformed("attStmt.x5c"), "an x5c element is not a byte string")
            }
            certificates.append(der)
        }
        let receipt: [UInt8]?
        switch statement["receipt"] {
        case nil: receipt = nil
        case .bytes(let bytes)?: receipt = bytes
        default: throw AppAttestError(.malformed("attStmt.receipt"), "the receipt is not a byte string")
        }
        guard let authData = object["authData"]?.bytesValue else {
            throw AppAttestError(.malformed("authData"), "no authData byte string")
        }
        self.format = format
        self.certificateChainDER = certificates
        self.receipt = receipt
        self.authenticatorData = try AuthenticatorData(attestation: authData)
    }
}
