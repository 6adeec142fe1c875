import AppCheckMessages
import GRPC
import Tokens

/// `GetPublicJwkSet`: every token-signing key's public half, so a key that still has valid tokens outstanding
/// stays published after a newer key takes over signing. Built once; answering costs nothing.
struct JWKSHandler: UnaryHandler {
    let keySet: PublicJwkSet

    init(keys: SigningKeySet) {
        keySet = PublicJwkSet(keys: keys.jwks.map { jwk in
            PublicJwk(kty: jwk.kty, use: jwk.use, alg: jwk.alg, kid: jwk.kid, n: jwk.n, e: jwk.e, crv: jwk.crv, x: jwk.x, y: jwk.y)
        })
    }

    func handle(_ request: GetPublicJwkSetRequest, context: RPCContext, reply: RPCReply<PublicJwkSet>) {
        guard request.name.isEmpty || request.name == "jwks" else {
            reply.fail(GRPCStatus(.invalidArgument, "name must be \"jwks\"."))
            return
        }
        reply.succeed(keySet)
    }
}
