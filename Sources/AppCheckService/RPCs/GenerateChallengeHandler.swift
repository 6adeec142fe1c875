import AppCheckMessages
import Basics
import GRPC
import Tokens

/// `GenerateAppAttestChallenge`: a fresh stateless challenge for a configured app. It writes nothing, so it answers
/// on the event loop with no hop: the cheapest RPC, and the one most often called.
struct GenerateChallengeHandler: UnaryHandler {
    let apps: AppRegistry
    let challenges: ChallengeCodec
    let clock: TimeSource

    func handle(_ request: GenerateAppAttestChallengeRequest, context: RPCContext,
                reply: RPCReply<GenerateAppAttestChallengeResponse>) {
        do throws(GRPCStatus) {
            let app = try apps.resolve(request.app)
            var response = GenerateAppAttestChallengeResponse()
            response.challenge = challenges.issue(appID: app.appID, now: clock.unixSeconds())
            response.ttl = ProtoDuration(seconds: challenges.ttlSeconds, nanos: 0)
            reply.succeed(response)
        } catch {
            reply.fail(error)
        }
    }
}
