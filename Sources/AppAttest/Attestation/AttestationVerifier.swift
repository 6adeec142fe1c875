import Basics
public import Crypto

/// Verifies App Attest attestation objects, following Apple's numbered steps ("Validating apps that connect to your
/// server"), then the receipt as a separate risk signal.
///
/// One verifier is meant to be shared by every thread of a process: its trust store caches the intermediates it has
/// verified (keyed by their DER digest), so a warm attestation costs one P-384 verification instead of two.
public final class AttestationVerifier: Sendable {
    private let trustStore: Result<TrustStore, AppAttestError>
    private let policy: AttestationPolicy
    private let receiptVerifier: ReceiptVerifier

    /// The nonce extension of the credential certificate.
    static let nonceExtensionOID = "1.2.840.113635.100.8.2"
    /// `SEQUENCE { [1] EXPLICIT OCTET STRING (32) }`: the bytes before the nonce in the extension value.
    static let nonceExtensionPrefix: [UInt8] = [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20]

    /// A verifier trusting `trustAnchorsDER` (Apple's App Attestation Root CA by default), applying `policy`, and
    /// checking receipts with `receiptVerifier`. `cacheCapacity` bounds the verified intermediates kept (0: none).
    public init(
        trustAnchorsDER: [[UInt8]] = AppleRoots.appAttestationRootDER, policy: AttestationPolicy = .default,
        receiptVerifier: ReceiptVerifier = ReceiptVerifier(), cacheCapacity: Int = 64
    ) {
        self.trustStore = Result { () throws(CryptoError) in
            try TrustStore(anchorsDER: trustAnchorsDER, capacity: cacheCapacity)
        }.mapError { AppAttestError(.trustAnchorsInvalid, $0.description) }
        self.policy = policy
        self.receiptVerifier = receiptVerifier
    }

    /// The trust store's cache counters (hits, misses, entries).
    public var cacheStatistics: TrustStore.Statistics? { try? trustStore.get().statistics }

    /// Verifies `attestationObject` for the key `keyID` (the raw 32 bytes), made over `clientDataHash` (exactly the
    /// bytes the app passed to `attestKey`), for one of `appIDs`, by a server configured for `environment`, at
    /// `time` (Unix seconds; nil means now).
    public func verify(
        attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], appIDs: [AppID],
        environment: AppAttestEnvironment, at time: Int64? = nil
    ) throws(AppAttestError) -> VerifiedAttestation {
        let time = time ?? TimeSource.system.unixSeconds()
        let object = try AttestationObject(attestationObject)
        let authData = object.authenticatorData
        guard let credential = authData.attestedCredential else {
            throw AppAttestError(.malformed("authData"), "no attested credential data")
        }
        guard keyID.count == SHA256.digestCount else {
            throw AppAttestError(.malformed("keyId"), "\(keyID.count) bytes, not 32")
        }

        // 1. Verify the certificate chain to the pinned App Attestation Root CA.
        let credCert: DERCertificate
        do {
            credCert = try DERCertificate(parsing: object.certificateChainDER[0])
        } catch {
            throw AppAttestError(.malformed("attStmt.x5c"), "the credential certificate is not DER X.509: \(error.message)")
        }
        let store = try trustStore.get()
        let chain: ChainVerification
        do {
            chain = try store.verify(
                leaf: credCert, intermediatesDER: Array(object.certificateChainDER.dropFirst()), at: time)
        } catch {
            throw AppAttestError(.chainInvalid(Self.chainReason(error.code)), error.message)
        }

        // 2-4. nonce = SHA256(authData || clientDataHash) must be the certificate's nonce extension.
        let nonce = SHA256.hash(authData.rawValue, clientDataHash)
        guard let nonceExtension = credCert.extensionValue(oid: Self.nonceExtensionOID) else {
            throw AppAttestError(.malformed("credCert.nonce"), "no extension \(Self.nonceExtensionOID)")
        }
        guard nonceExtension.count == Self.nonceExtensionPrefix.count + 32,
              nonceExtension.starts(with: Self.nonceExtensionPrefix)
        else {
            throw AppAttestError(.malformed("credCert.nonce"), "the nonce extension is not SEQUENCE { [1] OCTET STRING(32) }")
        }
        guard ConstantTime.equals(nonceExtension.dropFirst(Self.nonceExtensionPrefix.count), nonce) else {
            throw AppAttestError(.nonceMismatch, "the certificate's nonce is not SHA256(authData || clientDataHash)")
        }

        // 5. keyId = SHA-256 of the certificate's key as an X9.62 uncompressed point.
        guard credCert.hasUncompressedP256Key else {
            throw AppAttestError(.malformed("credCert.publicKey"), "the credential key is not an uncompressed P-256 point")
        }
        let point = Array(credCert.publicKey)
        guard SHA256.hash(point) == keyID else {
            throw AppAttestError(.keyIdMismatch, "SHA-256 of the certificate's key is not the keyId")
        }

        // 6. rpIdHash must be the hash of one of the app's App IDs (the full app and its App Clip).
        guard let appID = appIDs.first(where: { $0.rpIDHash == authData.rpIDHash }) else {
            throw AppAttestError(
                .appIdMismatch, "rpIdHash matches none of \(appIDs.map(\.string).joined(separator: ", "))")
        }

        // 7. The counter of a new key is 0.
        guard authData.signCount == 0 else {
            throw AppAttestError(.counterNotZero, "signCount is \(authData.signCount)")
        }

        // 8. The aaguid names an environment this server accepts.
        guard let keyEnvironment = AppAttestEnvironment(aaguid: credential.aaguid),
              environment.acceptedKeyEnvironments.contains(keyEnvironment)
        else {
            throw AppAttestError(
                .wrongEnvironment,
                "aaguid \(Hex.string(credential.aaguid)) is not accepted by a \(environment.rawValue) server")
        }

        // 9. credentialId = keyId.
        guard credential.credentialID == keyID else {
            throw AppAttestError(.credentialIdMismatch, "credentialId is not the keyId")
        }

        // Not one of Apple's steps, but cheap: the COSE key in authData is the certificate's key.
        guard credential.publicKey.uncompressedPoint == point else {
            throw AppAttestError(.publicKeyMismatch, "the COSE key is not the certificate's key")
        }

        // 10. iOS 27 extensions: the validation category must be allowed for the key's environment.
        guard policy.allows(authData.extensions.validationCategory, in: keyEnvironment) else {
            throw AppAttestError(
                .validationCategoryNotAllowed,
                "validation category \(authData.extensions.validationCategory ?? 0) in \(keyEnvironment.rawValue)")
        }

        let receipt = receiptOutcome(object.receipt, appID: appID, publicKey: point, clientDataHash: clientDataHash, at: time)
        return VerifiedAttestation(
            publicKey: point, keyID: keyID, appID: appID, environment: keyEnvironment, receipt: receipt,
            extensions: authData.extensions, usedCachedIntermediate: chain.usedCache)
    }

    /// The receipt is a risk signal: its failure is recorded, never thrown.
    private func receiptOutcome(
        _ receipt: [UInt8]?, appID: AppID, publicKey: [UInt8], clientDataHash: [UInt8], at time: Int64
    ) -> ReceiptOutcome {
        guard let receipt else { return .missing }
        guard !receipt.isEmpty else { return .empty }
        do {
            let verified = try receiptVerifier.verify(receipt, appID: appID, publicKey: publicKey, at: time)
            guard verified.clientHash == clientDataHash else {
                return .unverifiable(AppAttestError(.receiptClientHashMismatch, "field 4 is not the clientDataHash"))
            }
            return .verified(verified)
        } catch {
            return .unverifiable(error)
        }
    }

    /// The short name of a chain failure, as it appears in `chainInvalid(…)`.
    static func chainReason(_ code: CryptoError.Code) -> String {
        switch code {
        case .certificateExpired: "expired"
        case .certificateNotYetValid: "notYetValid"
        case .untrustedChain: "untrusted"
        case .badCertificateSignature: "badSignature"
        case .invalidCertificateAuthority: "invalidCA"
        case .malformedCertificate: "malformedCertificate"
        default: code.description
        }
    }
}
