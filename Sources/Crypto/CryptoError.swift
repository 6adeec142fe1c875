/// A failure in a cryptographic operation: a code to switch on and OpenSSL's own explanation.
///
/// Equality compares the code only, so tests can build the expected error directly.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case malformedCertificate, malformedKey, malformedSignedData, unsupportedKey
            case badSignature
            case certificateExpired, certificateNotYetValid, untrustedChain, badCertificateSignature
            case invalidCertificateAuthority, chainRejected(Int32)
            case internalFailure
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// DER that does not decode as an X.509 certificate.
        public static let malformedCertificate = Code(.malformedCertificate)
        /// Bytes that do not decode as a public key (or a point not on the curve).
        public static let malformedKey = Code(.malformedKey)
        /// Bytes that do not decode as CMS SignedData.
        public static let malformedSignedData = Code(.malformedSignedData)
        /// A key of a type or curve this module does not verify with.
        public static let unsupportedKey = Code(.unsupportedKey)
        /// A signature that does not verify.
        public static let badSignature = Code(.badSignature)
        /// A certificate in the chain had expired at the verification time.
        public static let certificateExpired = Code(.certificateExpired)
        /// A certificate in the chain was not yet valid at the verification time.
        public static let certificateNotYetValid = Code(.certificateNotYetValid)
        /// The chain does not lead to one of the trust anchors.
        public static let untrustedChain = Code(.untrustedChain)
        /// A certificate's signature does not verify with its issuer's key.
        public static let badCertificateSignature = Code(.badCertificateSignature)
        /// An issuer in the chain may not act as a certificate authority (basic constraints, key usage, path length).
        public static let invalidCertificateAuthority = Code(.invalidCertificateAuthority)
        /// Any other X.509 verification error, by OpenSSL's `X509_V_ERR_*` number.
        public static func chainRejected(_ x509Error: Int32) -> Code { Code(.chainRejected(x509Error)) }
        /// OpenSSL failed for a reason that is not about the input (allocation, provider).
        public static let internalFailure = Code(.internalFailure)

        /// True for the codes that describe a certificate chain that did not verify.
        public var isChainFailure: Bool {
            switch wrapped {
            case .certificateExpired, .certificateNotYetValid, .untrustedChain, .badCertificateSignature,
                .invalidCertificateAuthority, .chainRejected:
                true
            default: false
            }
        }

        /// A short camel-case name, stable enough for logs and metrics (`certificateExpired`, `chainRejected(26)`).
        public var description: String {
            switch wrapped {
            case .malformedCertificate: "malformedCertificate"
            case .malformedKey: "malformedKey"
            case .malformedSignedData: "malformedSignedData"
            case .unsupportedKey: "unsupportedKey"
            case .badSignature: "badSignature"
            case .certificateExpired: "certificateExpired"
            case .certificateNotYetValid: "certificateNotYetValid"
            case .untrustedChain: "untrustedChain"
            case .badCertificateSignature: "badCertificateSignature"
            case .invalidCertificateAuthority: "invalidCertificateAuthority"
            case .chainRejected(let number): "chainRejected(\(number))"
            case .internalFailure: "internalFailure"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A human explanation, including OpenSSL's error queue when it had something to say.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message.isEmpty ? code.description : "\(code): \(message)" }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
}
