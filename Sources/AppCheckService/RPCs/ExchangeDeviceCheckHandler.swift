import AppCheckMessages
import Apple
import GRPC

/// `ExchangeDeviceCheckToken`: Apple's `validate_device_token` says the DCDevice token is genuine and current,
/// then a token is minted. For devices or OS versions without App Attest.
struct ExchangeDeviceCheckHandler: UnaryHandler {
    let exchange: ExchangeContext
    let deviceCheck: DeviceCheckClients

    func handle(_ request: ExchangeDeviceCheckTokenRequest, context: RPCContext, reply: RPCReply<AppCheckToken>) {
        deviceCheck.callApple(
            app: request.app, deviceToken: request.deviceToken, endpoint: DeviceCheckClients.Endpoint.validateDeviceToken, exchange: exchange,
            context: context, reply: reply
        ) { client, deadline throws(AppleError) in
            try client.validate(deviceToken: request.deviceToken, deadline: deadline)
        } answer: { app, _ throws(GRPCStatus) in
            try exchange.mint(for: app, limitedUse: request.limitedUse)
        }
    }
}
