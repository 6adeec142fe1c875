// fuzz-authdata: authenticator data as an attestation carries it (with attested credential data: COSE key,
// extensions) and as an assertion carries it.
import AppAttest
import FuzzSupport

FuzzDriver.run { bytes in
    if let data = try? AuthenticatorData(attestation: bytes) {
        _ = data.flagNames
        _ = data.attestedCredential?.publicKey.uncompressedPoint
        _ = AppAttestEnvironment(aaguid: data.attestedCredential?.aaguid ?? [])
    }
    if let data = try? AuthenticatorData(assertion: bytes) {
        _ = data.flagNames
        _ = data.extensions.bundleVersion
    }
}
