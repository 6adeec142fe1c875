import Basics
import Crypto

/// The payload of an App Attest receipt: a SET OF `{type INTEGER, version INTEGER, value OCTET STRING}`.
///
/// Build one with `attest(…)` or `refreshed(…)`, change any field through `fields` or the subscript, and sign it
/// with `SimulatedReceiptCA.sign(_:)`.
public struct SimulatedReceipt: Sendable {
    /// One receipt attribute.
    public struct Field: Sendable, Equatable {
        public var type: Int
        public var version: Int
        public var value: [UInt8]

        public init(type: Int, version: Int = 1, value: [UInt8]) {
            self.type = type
            self.version = version
            self.value = value
        }
    }

    /// Apple's field numbers.
    public enum FieldType {
        public static let appID = 2
        public static let attestedPublicKey = 3
        public static let clientHash = 4
        public static let token = 5
        public static let receiptType = 6
        public static let environment = 7
        public static let creationTime = 12
        public static let riskMetric = 17
        public static let notBefore = 19
        public static let expirationTime = 21
    }

    /// The fields in the order they were set; `payloadDER` sorts them as DER requires.
    public var fields: [Field]

    public init(fields: [Field]) {
        self.fields = fields
    }

    /// The value of the first field of `type`; setting nil removes every field of that type.
    public subscript(type: Int) -> [UInt8]? {
        get { fields.first { $0.type == type }?.value }
        set {
            if let newValue {
                if let index = fields.firstIndex(where: { $0.type == type }) {
                    fields[index].value = newValue
                } else {
                    fields.append(Field(type: type, value: newValue))
                }
            } else {
                fields.removeAll { $0.type == type }
            }
        }
    }

    /// The receipt an attestation carries (type `ATTEST`): fields 2, 3, 4, 5, 6, 7, 12 and 21 (creation + 90 days).
    ///
    /// - Parameters:
    ///   - credentialCertificateDER: field 3, the whole credential certificate, as Apple writes it.
    ///   - createdAt: milliseconds since the Unix epoch.
    public static func attest(
        appID: String,
        credentialCertificateDER: [UInt8],
        clientDataHash: [UInt8],
        environment: SimulatedEnvironment,
        createdAt: Int64
    ) -> SimulatedReceipt {
        SimulatedReceipt(fields: [
            Field(type: FieldType.appID, value: Array(appID.utf8)),
            Field(type: FieldType.attestedPublicKey, value: credentialCertificateDER),
            Field(type: FieldType.clientHash, value: clientDataHash),
            Field(type: FieldType.token, value: randomToken()),
            Field(type: FieldType.receiptType, value: Array("ATTEST".utf8)),
            Field(type: FieldType.environment, value: Array(environment.receiptEnvironment.utf8)),
            Field(type: FieldType.creationTime, value: time(createdAt)),
            Field(type: FieldType.expirationTime, value: time(createdAt + 90 * 86_400 * 1000)),
        ])
    }

    /// A receipt as Apple's risk-metric service returns it (type `RECEIPT`), adding fields 17 and 19 (creation +
    /// 1 day) to the attestation receipt's fields.
    public static func refreshed(
        appID: String,
        credentialCertificateDER: [UInt8],
        clientDataHash: [UInt8],
        environment: SimulatedEnvironment,
        riskMetric: Int,
        createdAt: Int64
    ) -> SimulatedReceipt {
        var receipt = attest(
            appID: appID, credentialCertificateDER: credentialCertificateDER, clientDataHash: clientDataHash,
            environment: environment, createdAt: createdAt)
        receipt[FieldType.receiptType] = Array("RECEIPT".utf8)
        receipt[FieldType.riskMetric] = Array(String(riskMetric).utf8)
        receipt[FieldType.notBefore] = time(createdAt + 86_400 * 1000)
        return receipt
    }

    /// An ISO 8601 time with milliseconds, as receipt fields 12, 19 and 21 hold it.
    public static func time(_ milliseconds: Int64) -> [UInt8] {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return Array(RFC3339.format(
            unixSeconds: seconds, nanoseconds: Int32(milliseconds - seconds * 1000) * 1_000_000, fraction: .milliseconds).utf8)
    }

    /// The DER payload: the SET OF attributes, sorted.
    public var payloadDER: [UInt8] {
        DER.setOf(fields.map {
            DER.sequence(DER.integer(UInt64($0.type)), DER.integer(UInt64($0.version)), DER.octetString($0.value))
        })
    }

    /// 88 base64 characters, like Apple's opaque field 5.
    private static func randomToken() -> [UInt8] {
        Array(Base64.standard.encode(SecureRandom.bytes(count: 66)).utf8)
    }
}
