import Config
import GRPC

/// The endpoints one listener serves, by gRPC path and by REST route. A listener's table holds only what its role
/// allows, so an RPC it does not serve is not found there at all: UNIMPLEMENTED or 404, as for a method attestd
/// has never heard of.
struct ServedEndpoints: Sendable {
    let services: ListenerServices
    let grpc: [String: RPCEndpoint]
    let rest: RESTRouter<RPCEndpoint>

    init(_ endpoints: [RPCEndpoint], services: ListenerServices) {
        let served = endpoints.filter { services.contains($0.service) }
        self.services = services
        grpc = Dictionary(served.map { ($0.method.path.description, $0) }, uniquingKeysWith: { first, _ in first })
        rest = RESTRouter(served.flatMap { endpoint in endpoint.method.restBindings.map { ($0, endpoint) } })
    }

    func serves(_ service: ListenerServices) -> Bool { services.contains(service) }
}
