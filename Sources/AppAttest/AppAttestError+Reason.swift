extension AppAttestError {
    /// One failed rule. A struct around a private enum, so that reasons can be added without breaking callers.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable, CaseIterable {
            case unsupportedFormat, malformed
            case chainInvalid, nonceMismatch, keyIdMismatch, appIdMismatch, counterNotZero
            case wrongEnvironment, credentialIdMismatch, publicKeyMismatch, validationCategoryNotAllowed
            case badSignature, counterNotIncreasing
            case receiptSignatureInvalid, receiptChainInvalid, receiptAppIdMismatch, receiptKeyMismatch
            case receiptClientHashMismatch, receiptTooOld
            case trustAnchorsInvalid

            /// Whether reasons of this kind name a part or a cause (`malformed(authData)`), an open set.
            var takesDetail: Bool {
                switch self {
                case .malformed, .chainInvalid, .receiptChainInvalid: true
                case .unsupportedFormat, .nonceMismatch, .keyIdMismatch, .appIdMismatch, .counterNotZero, .wrongEnvironment,
                     .credentialIdMismatch, .publicKeyMismatch, .validationCategoryNotAllowed, .badSignature,
                     .counterNotIncreasing, .receiptSignatureInvalid, .receiptAppIdMismatch, .receiptKeyMismatch,
                     .receiptClientHashMismatch, .receiptTooOld, .trustAnchorsInvalid: false
                }
            }
        }

        private let kind: Kind
        /// The part or cause of a kind that takes one; nil otherwise.
        private let detail: String?
        private init(_ kind: Kind, _ detail: String? = nil) {
            self.kind = kind
            self.detail = detail
        }

        /// Every reason that names no part or cause (all but `malformed(...)`, `chainInvalid(...)` and
        /// `receiptChainInvalid(...)`), so that the failure metric can export each at zero before it first happens.
        public static var fixedReasons: [Reason] {
            Kind.allCases.filter { !$0.takesDetail }.map { Reason($0) }
        }

        /// `fmt` is not `apple-appattest`.
        public static let unsupportedFormat = Reason(.unsupportedFormat)
        /// The input does not have the expected structure; `place` names the part (`authData`, `attStmt.x5c`, …).
        public static func malformed(_ place: String) -> Reason { Reason(.malformed, place) }
        /// Step 1: the certificate chain does not verify to the pinned root; `why` is `expired`, `untrusted`, ….
        public static func chainInvalid(_ why: String) -> Reason { Reason(.chainInvalid, why) }
        /// Steps 2-4: the certificate's nonce is not SHA256(authData || clientDataHash).
        public static let nonceMismatch = Reason(.nonceMismatch)
        /// Step 5: SHA-256 of the certificate's public key is not the keyId.
        public static let keyIdMismatch = Reason(.keyIdMismatch)
        /// Step 6 (attestation) or 4 (assertion): rpIdHash matches none of the app's App IDs.
        public static let appIdMismatch = Reason(.appIdMismatch)
        /// Step 7: an attestation's counter is not 0.
        public static let counterNotZero = Reason(.counterNotZero)
        /// Step 8: the aaguid is not one the configured environment accepts.
        public static let wrongEnvironment = Reason(.wrongEnvironment)
        /// Step 9: credentialId is not the keyId.
        public static let credentialIdMismatch = Reason(.credentialIdMismatch)
        /// The COSE key in authData is not the certificate's key.
        public static let publicKeyMismatch = Reason(.publicKeyMismatch)
        /// Step 10 (iOS 27): `apple_validation_category_01` is not allowed by the policy for the environment.
        public static let validationCategoryNotAllowed = Reason(.validationCategoryNotAllowed)
        /// Assertion step 3: the signature does not verify with the attested key.
        public static let badSignature = Reason(.badSignature)
        /// Assertion step 5: the counter is not greater than the previous one.
        public static let counterNotIncreasing = Reason(.counterNotIncreasing)
        /// Receipt step 1: the CMS signature does not verify.
        public static let receiptSignatureInvalid = Reason(.receiptSignatureInvalid)
        /// Receipt step 2: the signer's chain does not verify to the pinned Apple Root CA - G3.
        public static func receiptChainInvalid(_ why: String) -> Reason { Reason(.receiptChainInvalid, why) }
        /// Receipt step 4: field 2 is not the App ID.
        public static let receiptAppIdMismatch = Reason(.receiptAppIdMismatch)
        /// Receipt step 6: field 3's key is not the attested key.
        public static let receiptKeyMismatch = Reason(.receiptKeyMismatch)
        /// Field 4 of an attestation's receipt is not the clientDataHash the attestation was made with.
        public static let receiptClientHashMismatch = Reason(.receiptClientHashMismatch)
        /// Receipt step 5: the creation time is older than the maximum age allowed.
        public static let receiptTooOld = Reason(.receiptTooOld)
        /// The configured trust anchors are not certificates.
        public static let trustAnchorsInvalid = Reason(.trustAnchorsInvalid)

        /// The reason as logs and metrics name it: `nonceMismatch`, `chainInvalid(expired)`, `malformed(authData)`.
        public var name: String {
            detail.map { "\(kind.rawValue)(\($0))" } ?? kind.rawValue
        }

        public var description: String { name }
    }
}
