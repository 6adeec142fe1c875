/// `grpc.health.v1.HealthCheckResponse`: The health of a service.
public struct HealthCheckResponse: ProtoMessage, Hashable {
    public var status: ServingStatus

    public init(status: ServingStatus = .init(rawValue: 0)) {
        self.status = status
    }
}

extension HealthCheckResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("grpc.health.v1.HealthCheckResponse")

    init(reading message: MessageReader) {
        status = ServingStatus(rawValue: message.int32(1))
    }

    func write(to message: MessageWriter) {
        message.int32(1, status.rawValue)
    }
}
