import AppCheckMessages
import Apple
import GRPC

extension DeviceCheckClients {
    /// What every DeviceCheck RPC checks first, on the event loop: the app, that a device token was sent, and that
    /// the app has a DeviceCheck key (FAILED_PRECONDITION otherwise).
    func resolve(_ appName: String, deviceToken: String, in apps: AppRegistry) throws(GRPCStatus) -> (RegisteredApp, DeviceCheckClient) {
        let app = try apps.resolve(appName)
        guard !deviceToken.isEmpty else { throw GRPCStatus(.invalidArgument, "device_token is required.") }
        return (app, try client(for: app))
    }

    /// Every DeviceCheck RPC: `resolve` on the event loop (a refusal answers at once), then one call to Apple on the
    /// DeviceCheck threads — never the event loop or the verifier pool, since it blocks — whose result `answer`
    /// turns into the response.
    func callApple<Result, Response>(
        app appName: String, deviceToken: String, endpoint: String, exchange: ExchangeContext, context: RPCContext,
        reply: RPCReply<Response>,
        _ call: @escaping @Sendable (DeviceCheckClient, ContinuousClock.Instant) throws(AppleError) -> Result,
        answer: @escaping @Sendable (RegisteredApp, Result) throws(GRPCStatus) -> Response
    ) {
        let app: RegisteredApp
        let client: DeviceCheckClient
        do throws(GRPCStatus) {
            (app, client) = try resolve(appName, deviceToken: deviceToken, in: exchange.apps)
        } catch {
            reply.fail(error)
            return
        }
        onPool(context, reply: reply) { () throws(GRPCStatus) in
            let result = try exchange.callApple(app: app, endpoint: endpoint, requests: requests, context: context) {
                deadline throws(AppleError) in try call(client, deadline)
            }
            return try answer(app, result)
        }
    }
}
