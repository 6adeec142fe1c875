import Crypto

/// Verifies App Attest assertions, following Apple's steps for assertions.
///
/// The caller derives clientDataHash (attestd uses SHA256(artifact || challenge), the Firebase SDK's rule), passes
/// the counter it stored for the key, and advances it atomically to the returned one.
public struct AssertionVerifier: Sendable {
    private let keys: PublicKeyCache

    /// A verifier keeping the parsed keys of up to `keyCacheCapacity` recently seen devices (0: rebuild every key).
    /// OpenSSL 3.0 spends about half an ECDSA verification building a key from its point, which a device asserting
    /// again is spared; the signature is verified by OpenSSL every time. Share one verifier (it is a value holding a
    /// shared cache) rather than making one per call.
    public init(keyCacheCapacity: Int = 4096) {
        self.keys = PublicKeyCache(capacity: keyCacheCapacity)
    }

    /// Verifies `assertion` made with the attested `publicKey` (65-byte point) over `clientDataHash`, for one of
    /// `appIDs`, whose counter must exceed `previousCounter`.
    public func verify(
        assertion: [UInt8], publicKey: [UInt8], clientDataHash: [UInt8], appIDs: [AppID], previousCounter: UInt32
    ) throws(AppAttestError) -> VerifiedAssertion {
        let object = try AssertionObject(assertion)
        let authData = object.authenticatorData

        // 1-2. nonce = SHA256(authenticatorData || clientDataHash).
        let nonce = SHA256.hash(authData.rawValue, clientDataHash)

        // 3. ECDSA P-256 with SHA-256 over the nonce as the message (so the digest signed is SHA256(nonce)).
        let signed: Bool
        do {
            signed = try keys.isValidSignature(object.signature, for: nonce, p256UncompressedPoint: publicKey)
        } catch {
            throw AppAttestError(.malformed("publicKey"), error.message)
        }
        guard signed else {
            throw AppAttestError(.badSignature, "the signature does not verify over SHA256(authData || clientDataHash)")
        }

        // 4. rpIdHash.
        guard let appID = appIDs.first(where: { $0.rpIDHash == authData.rpIDHash }) else {
            throw AppAttestError(
                .appIdMismatch, "rpIdHash matches none of \(appIDs.map(\.string).joined(separator: ", "))")
        }

        // 5. The counter strictly increases.
        guard authData.signCount > previousCounter else {
            throw AppAttestError(
                .counterNotIncreasing, "counter \(authData.signCount) is not above \(previousCounter)")
        }
        return VerifiedAssertion(counter: authData.signCount, appID: appID, extensions: authData.extensions)
    }
}

/// What a valid assertion establishes.
public struct VerifiedAssertion: Sendable {
    /// The new counter, to store for the key (compare-and-advance).
    public let counter: UInt32
    /// The configured App ID whose hash the authenticator data carried.
    public let appID: AppID
    /// The iOS 27 extensions (empty before iOS 27).
    public let extensions: AuthenticatorExtensions
}
