import AppCheckMessages
import GRPC

/// `grpc.health.v1.Health/Check`: SERVING for the whole server ("") and for each service attestd serves, until a
/// graceful shutdown begins; NOT_FOUND for a service it does not know, as the health protocol says.
struct HealthCheckHandler: UnaryHandler {
    let health: HealthState
    let services: Set<String>

    func handle(_ request: HealthCheckRequest, context: RPCContext, reply: RPCReply<HealthCheckResponse>) {
        guard request.service.isEmpty || services.contains(request.service) else {
            reply.fail(GRPCStatus(.notFound, "Unknown service \(request.service)."))
            return
        }
        var response = HealthCheckResponse()
        response.status = health.isServing ? .serving : .notServing
        reply.succeed(response)
    }
}
