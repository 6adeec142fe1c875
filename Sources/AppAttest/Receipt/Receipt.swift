import Basics
import Crypto

/// The payload of an App Attest receipt: `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
/// Unknown field types are ignored.
public struct Receipt: Sendable {
    /// Field 2: `TeamID.bundleID`.
    public var appID: String
    /// Field 3: the attested credential certificate, DER (byte-identical to x5c[0]).
    public var attestedCertificateDER: [UInt8]
    /// Field 4: the clientDataHash the app passed to `attestKey`.
    public var clientHash: [UInt8]
    /// Field 5: Apple's opaque token.
    public var token: String
    /// Field 6: `ATTEST` (inside an attestation) or `RECEIPT` (from Apple's risk-metric service).
    public var type: String
    /// Field 7 (undocumented): `sandbox` or `production`.
    public var environment: String?
    /// Field 12: creation time, Unix seconds.
    public var creationTime: Int64
    /// Field 17: the risk metric (RECEIPT only).
    public var riskMetric: Int?
    /// Field 19: the earliest refresh time, Unix seconds (RECEIPT only).
    public var notBefore: Int64?
    /// Field 21: the time after which the receipt cannot be refreshed, Unix seconds.
    public var expirationTime: Int64?

    /// Parses the DER payload (the SignedData content, already reassembled).
    public init(payload: [UInt8]) throws(AppAttestError) {
        var outer = DERReader(payload[...])
        guard let set = outer.read(tag: 0x31), outer.isAtEnd else {
            throw AppAttestError(.malformed("receipt.payload"), "the payload is not one SET")
        }
        var fields: [Int: [UInt8]] = [:]
        var reader = DERReader(set)
        while !reader.isAtEnd {
            guard let sequence = reader.read(tag: 0x30) else {
                throw AppAttestError(.malformed("receipt.payload"), "an attribute is not a SEQUENCE")
            }
            var attribute = DERReader(sequence)
            guard let type = attribute.readSmallInteger(), attribute.readSmallInteger() != nil,
                  let value = attribute.read(tag: 0x04), attribute.isAtEnd
            else { throw AppAttestError(.malformed("receipt.payload"), "an attribute is not {type, version, value}") }
            fields[type] = Array(value)
        }

        func required(_ type: Int) throws(AppAttestError) -> [UInt8] {
            guard let value = fields[type] else {
                throw AppAttestError(.malformed("receipt.field\(type)"), "field \(type) is missing")
            }
            return value
        }
        func text(_ bytes: [UInt8], _ type: Int) throws(AppAttestError) -> String {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw AppAttestError(.malformed("receipt.field\(type)"), "field \(type) is not UTF-8")
            }
            return text
        }
        func time(_ bytes: [UInt8], _ type: Int) throws(AppAttestError) -> Int64 {
            guard let time = RFC3339.parse(try text(bytes, type)), time.isWrittenInUTC else {
                throw AppAttestError(.malformed("receipt.field\(type)"), "field \(type) is not an ISO 8601 UTC time")
            }
            return time.unixSeconds
        }

        appID = try text(try required(2), 2)
        attestedCertificateDER = try required(3)
        clientHash = try required(4)
        token = try text(try required(5), 5)
        type = try text(try required(6), 6)
        environment = try fields[7].map { (bytes) throws(AppAttestError) in try text(bytes, 7) }
        creationTime = try time(try required(12), 12)
        riskMetric = try fields[17].map { (bytes) throws(AppAttestError) in
            guard let metric = Int(try text(bytes, 17)) else {
                throw AppAttestError(.malformed("receipt.field17"), "the risk metric is not a decimal number")
            }
            return metric
        }
        notBefore = try fields[19].map { (bytes) throws(AppAttestError) in try time(bytes, 19) }
        expirationTime = try fields[21].map { (bytes) throws(AppAttestError) in try time(bytes, 21) }
    }
}
