import Crypto
import GRPC

/// The operator credential of the KeyService RPCs: `authorization: Bearer <token>`, where the SHA-256 of the token
/// is listed in `admin.tokenHashes`. Compared in constant time; the token itself is never stored.
struct AdminCredential: Sendable {
    let tokenHashes: [[UInt8]]

    func check(_ context: RPCContext) throws(GRPCStatus) {
        guard !tokenHashes.isEmpty else {
            throw GRPCStatus(.failedPrecondition, "The KeyService is disabled: no admin.tokenHashes are configured.")
        }
        guard let header = context.authorization, header.hasPrefix("Bearer "), header.count > 7 else {
            throw GRPCStatus(.unauthenticated, "An admin bearer token is required.")
        }
        let digest = SHA256.hash(Array(header.utf8.dropFirst(7)))
        guard tokenHashes.reduce(false, { $0 || ConstantTime.equals($1, digest) }) else {
            context.logger.warning("KeyService call with an unknown admin token")
            throw GRPCStatus(.permissionDenied, "The admin token is not valid.")
        }
    }
}
