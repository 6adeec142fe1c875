import AppAttest
import AppCheckMessages
import Crypto
import GRPC
import Storage

extension AttestedKeyRecord {
    /// The record as the KeyService answers it.
    var message: AttestedKey {
        var key = AttestedKey()
        key.keyID = keyID
        key.app = appID
        key.environment = environment == "production" ? .production : .development
        key.firstAttestedTime = ProtoTimestamp(seconds: firstSeen)
        key.lastSeenTime = ProtoTimestamp(seconds: lastSeen)
        key.counter = counter
        key.riskMetric = riskMetric.map { UInt32(clamping: $0) } ?? 0
        key.revoked = revoked
        // The latest receipt's dates: it was verified when stored, so reading its payload is enough here.
        if let receipt, let signed = try? SignedData.verifyingSignature(receipt),
           let payload = try? Receipt(payload: signed.content) {
            key.receiptCreationTime = ProtoTimestamp(seconds: payload.creationTime)
            key.receiptNotBeforeTime = payload.notBefore.map { ProtoTimestamp(seconds: $0) }
            key.receiptExpirationTime = payload.expirationTime.map { ProtoTimestamp(seconds: $0) }
        }
        return key
    }
}
