/// Checks of the request headers that decide whether a gRPC request can be served at all.
public enum GRPCRequestHeaders {
    /// Whether `contentType` names gRPC with protobuf messages (`application/grpc`, `application/grpc+proto`,
    /// optionally with parameters). `application/grpc+json` and other codecs are not gRPC as attestd serves it.
    public static func isGRPC(contentType: some StringProtocol) -> Bool {
        var media = Substring(contentType)
        if let semicolon = media.firstIndex(of: ";") { media = media[..<semicolon] }
        let trimmed = media.trimmingASCIISpaces().lowercased()
        return trimmed == "application/grpc" || trimmed == "application/grpc+proto"
    }

    /// Accepts a request's `grpc-encoding` (absent or `identity`).
    ///
    /// - Throws: UNIMPLEMENTED for any other encoding: attestd does not decompress.
    public static func checkEncoding(_ encoding: (some StringProtocol)?) throws(GRPCStatus) {
        guard let encoding else { return }
        let value = Substring(encoding).trimmingASCIISpaces()
        guard value.isEmpty || value.lowercased() == "identity" else {
            throw GRPCStatus(.unimplemented, "grpc-encoding \(value) is not supported: send identity encoding.")
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingASCIISpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
