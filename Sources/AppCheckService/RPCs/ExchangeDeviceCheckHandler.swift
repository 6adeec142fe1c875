import AppCheckMessages
import Apple
import GRPC

/// `ExchangeDeviceCheckToken`: Apple's `validate_device_token` says the DCDevice token is genuine and current,
/// then a token is minted. For devices or OS versions without App Attest.
struct ExchangeDeviceCheckHandler: UnaryHandler {
    let exchange: ExchangeContext
    let deviceCheck: DeviceCheckClients

    func handle(_ request: ExchangeDeviceCheckTokenRequest, context: RPCContext, reply: RPCReply<AppCheckToken>) {
        let app: RegisteredApp
        let client: DeviceCheckClient
        do throws(GRPCStatus) {
            (app, client) = try deviceCheck.resolve(request.app, deviceToken: request.deviceToken, in: exchange.apps)
        } catch {
            reply.fail(error)
            return
        }
        // The call to Apple blocks: it runs on threads of its own, never on the event loop or the verifier pool.
        deviceCheck.onPool(context, reply: reply) { () throws(GRPCStatus) in
            try exchange.callApple(
                app: app, endpoint: "validate_device_token", requests: deviceCheck.requests, context: context
            ) { deadline throws(AppleError) in
                try client.validate(deviceToken: request.deviceToken, deadline: deadline)
            }
            return try exchange.mint(for: app, limitedUse: request.limitedUse)
        }
    }
}

extension DeviceCheckClients {
    /// What every DeviceCheck RPC checks first, on the event loop: the app, that a device token was sent, and that
    /// the app has a DeviceCheck key (FAILED_PRECONDITION otherwise).
    func resolve(_ appName: String, deviceToken: String, in apps: AppRegistry) throws(GRPCStatus) -> (RegisteredApp, DeviceCheckClient) {
        let app = try apps.resolve(appName)
        guard !deviceToken.isEmpty else { throw GRPCStatus(.invalidArgument, "device_token is required.") }
        return (app, try client(for: app))
    }
}
