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

extension AppRegistry {
    /// The app a request names, or the status the contract gives: INVALID_ARGUMENT for a malformed name, NOT_FOUND
    /// for an app or project this node does not serve.
    func resolve(_ resourceName: String) throws(GRPCStatus) -> RegisteredApp {
        do {
            return try app(named: resourceName)
        } catch {
            switch error {
            case .invalidName(let name):
                throw GRPCStatus(.invalidArgument, "app must be projects/{project}/apps/{app_id}, got \"\(name)\".")
            case .unknownProject(let project):
                throw GRPCStatus(.notFound, "Project \(project) is not served here.")
            case .unknownApp(let app):
                throw GRPCStatus(.notFound, "App \(app) is not configured.")
            }
        }
    }
}
