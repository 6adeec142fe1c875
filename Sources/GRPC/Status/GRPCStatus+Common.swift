extension GRPCStatus {
    /// The status for a gRPC `:path` that names no served method (gRPC's convention: UNIMPLEMENTED).
    public static func unknownMethod(_ path: some StringProtocol) -> GRPCStatus {
        GRPCStatus(.unimplemented, "Method not found: \(path)")
    }

    /// The status for a REST path that names no resource or method.
    public static func unknownRESTPath(method: some StringProtocol, path: some StringProtocol) -> GRPCStatus {
        GRPCStatus(.notFound, "No method for \(method) \(path).")
    }

    /// The status for an RPC attestd knows but does not serve (Play Integrity, SafetyNet, reCAPTCHA).
    public static func notServed(_ method: some StringProtocol) -> GRPCStatus {
        GRPCStatus(.unimplemented, "\(method) is not served by attestd.")
    }
}
