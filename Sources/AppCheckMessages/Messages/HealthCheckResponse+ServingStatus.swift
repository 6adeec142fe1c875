extension HealthCheckResponse {
    /// `grpc.health.v1.HealthCheckResponse.ServingStatus`. Open, as proto3 enums are: unknown numbers survive.
    public struct ServingStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unknown = ServingStatus(rawValue: 0)
        public static let serving = ServingStatus(rawValue: 1)
        public static let notServing = ServingStatus(rawValue: 2)
        /// Used only by the Watch method.
        public static let serviceUnknown = ServingStatus(rawValue: 3)

        public var description: String {
            switch rawValue {
            case 0: "UNKNOWN"
            case 1: "SERVING"
            case 2: "NOT_SERVING"
            case 3: "SERVICE_UNKNOWN"
            default: String(rawValue)
            }
        }
    }
}
