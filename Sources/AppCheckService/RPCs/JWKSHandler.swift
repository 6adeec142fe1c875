import AppCheckMessages
import Basics
import GRPC
import Tokens

/// `GetPublicJwkSet`: the public half of every token-signing key published at the time of the request: keys about
/// to sign (so that verifiers caching the JWKS have them first), the key that signs, and retired keys whose tokens
/// may still be alive. The set of each period between two of the schedule's boundaries is built once; a request
/// costs a binary search over those boundaries.
struct JWKSHandler: UnaryHandler {
    /// The `max-age` of the REST response, in seconds: Firebase's JWKS must not be cached longer than 6 hours. Key
    /// schedules publish a key at least this long before it signs (`SigningKeyRotationRules`).
    static let maxAgeSeconds: Int64 = 21_600

    /// Where each period starts (the first at `Int64.min`), ascending, and the set published during it.
    private let periodStarts: [Int64]
    private let periodSets: [PublicJwkSet]
    private let clock: TimeSource

    init(keys: SigningKeySet, clock: TimeSource) {
        periodStarts = [Int64.min] + keys.boundaries
        periodSets = periodStarts.map { start in
            PublicJwkSet(keys: keys.jwks(at: start).map { jwk in
                PublicJwk(kty: jwk.kty, use: jwk.use, alg: jwk.alg, kid: jwk.kid, n: jwk.n, e: jwk.e, crv: jwk.crv, x: jwk.x, y: jwk.y)
            })
        }
        self.clock = clock
    }

    /// The set published at `time` (Unix seconds).
    func keySet(at time: Int64) -> PublicJwkSet {
        var low = 1
        var high = periodStarts.count
        while low < high {
            let middle = (low + high) / 2
            if periodStarts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return periodSets[low - 1]
    }

    func handle(_ request: GetPublicJwkSetRequest, context: RPCContext, reply: RPCReply<PublicJwkSet>) {
        guard request.name.isEmpty || request.name == "jwks" else {
            reply.fail(GRPCStatus(.invalidArgument, "name must be \"jwks\"."))
            return
        }
        reply.succeed(keySet(at: clock.unixSeconds()))
    }
}
