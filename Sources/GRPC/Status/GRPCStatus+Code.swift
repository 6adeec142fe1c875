extension GRPCStatus {
    /// A gRPC status code, mirroring `google.rpc.Code` (0 … 16).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The number sent in `grpc-status`.
        public let rawValue: Int

        /// The code for `rawValue`, or nil when it is not one of the 17 defined codes.
        public init?(rawValue: Int) {
            guard Self.names.indices.contains(rawValue) else { return nil }
            self.rawValue = rawValue
        }

        private init(_ rawValue: Int) { self.rawValue = rawValue }

        /// Not an error.
        public static let ok = Code(0)
        /// The caller cancelled the operation.
        public static let cancelled = Code(1)
        /// An error with no better code.
        public static let unknown = Code(2)
        /// The request is malformed (a missing field, bad base64, a bad resource name).
        public static let invalidArgument = Code(3)
        /// The deadline passed before the work was done.
        public static let deadlineExceeded = Code(4)
        /// The project, app or resource does not exist.
        public static let notFound = Code(5)
        /// What the caller tried to create exists already.
        public static let alreadyExists = Code(6)
        /// The caller may not do this (every failed attestation check).
        public static let permissionDenied = Code(7)
        /// A message is too large, or a rate limit is reached.
        public static let resourceExhausted = Code(8)
        /// The system is not in a state to serve this (a provider not configured).
        public static let failedPrecondition = Code(9)
        /// A concurrency conflict aborted the operation.
        public static let aborted = Code(10)
        /// A value is past the valid range.
        public static let outOfRange = Code(11)
        /// The method is not served.
        public static let unimplemented = Code(12)
        /// An invariant broke: a server bug.
        public static let `internal` = Code(13)
        /// The service cannot serve now (overload, a store or Apple unreachable); retry later.
        public static let unavailable = Code(14)
        /// Unrecoverable data loss or corruption.
        public static let dataLoss = Code(15)
        /// The caller has no valid credentials.
        public static let unauthenticated = Code(16)

        private static let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
            "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
            "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]

        // google/rpc/code.proto documents the HTTP status of each code; Google's REST front ends use it.
        private static let httpStatuses = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401]

        /// The `google.rpc.Code` name, as in the REST error body's `status` ("PERMISSION_DENIED").
        public var name: String { Self.names[rawValue] }

        /// The HTTP status Google's REST mapping gives this code (PERMISSION_DENIED → 403).
        public var httpStatus: Int { Self.httpStatuses[rawValue] }

        public var description: String { name }
    }
}
