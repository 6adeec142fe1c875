import GRPC

/// `grpc.health.v1.HealthCheckRequest`: Asks for the health of a service (empty: the whole server).
public struct HealthCheckRequest: ProtoMessage, Hashable {
    public var service: String

    public init(service: String = "") {
        self.service = service
    }
}

extension HealthCheckRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("grpc.health.v1.HealthCheckRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        service = try message.string(1)
    }

    func write(to message: MessageWriter) {
        message.string(1, service)
    }
}
