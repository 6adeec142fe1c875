import AppCheckMessages
import Apple
import GRPC

/// `attestd.v1.DeviceStateService/QueryTwoBits`: the device's two bits for the app's team, read from Apple.
/// Only the app's backend may ask (a backend caller of the app's project): a device that could read its own bits
/// could learn what the backend decides with them. Apple answers only for a genuine, current device token (a 400 →
/// PERMISSION_DENIED).
struct QueryTwoBitsHandler: UnaryHandler {
    let exchange: ExchangeContext
    let deviceCheck: DeviceCheckClients
    let callers: CallerCredentials

    func handle(_ request: QueryTwoBitsRequest, context: RPCContext, reply: RPCReply<TwoBitsState>) {
        do throws(GRPCStatus) {
            try callers.authorizeBackend(context, appName: request.app)
        } catch {
            return reply.fail(error)
        }
        deviceCheck.callApple(
            app: request.app, deviceToken: request.deviceToken, endpoint: DeviceCheckClients.Endpoint.queryTwoBits, exchange: exchange,
            context: context, reply: reply
        ) { client, deadline throws(AppleError) in
            try client.queryTwoBits(deviceToken: request.deviceToken, deadline: deadline)
        } answer: { _, bits in
            // Never set: Apple's plain-text 200; both bits read false and `bits_set` says so.
            guard let bits else { return TwoBitsState() }
            return TwoBitsState(
                bit0: bits.bit0, bit1: bits.bit1, lastUpdateTime: MonthStamp.timestamp(bits.lastUpdateTime), bitsSet: true)
        }
    }
}

/// `attestd.v1.DeviceStateService/UpdateTwoBits`: sets both bits for the device (proto3 bools are always present),
/// and answers with the state now stored. Only the app's backend may write them: a device that could would reset
/// its own "free trial used" flag.
struct UpdateTwoBitsHandler: UnaryHandler {
    let exchange: ExchangeContext
    let deviceCheck: DeviceCheckClients
    let callers: CallerCredentials

    func handle(_ request: UpdateTwoBitsRequest, context: RPCContext, reply: RPCReply<TwoBitsState>) {
        do throws(GRPCStatus) {
            try callers.authorizeBackend(context, appName: request.app)
        } catch {
            return reply.fail(error)
        }
        deviceCheck.callApple(
            app: request.app, deviceToken: request.deviceToken, endpoint: DeviceCheckClients.Endpoint.updateTwoBits, exchange: exchange,
            context: context, reply: reply
        ) { client, deadline throws(AppleError) in
            try client.updateTwoBits(deviceToken: request.deviceToken, bit0: request.bit0, bit1: request.bit1, deadline: deadline)
        } answer: { app, _ in
            context.logger.info("two bits updated", [("app", app.appID)])
            // Apple stamps the update with the current month.
            return TwoBitsState(
                bit0: request.bit0, bit1: request.bit1, lastUpdateTime: MonthStamp.month(of: exchange.now()), bitsSet: true)
        }
    }
}
