/// Checks of the request headers of a REST (JSON) call.
public enum RESTRequestHeaders {
    /// Whether a request with this `content-type` may carry a JSON body: `application/json` with any parameters,
    /// or no content type at all (the iOS SDK sends its challenge request with neither body nor content type).
    public static func acceptsJSON(contentType: (some StringProtocol)?) -> Bool {
        guard let contentType else { return true }
        var media = Substring(contentType)
        if let semicolon = media.firstIndex(of: ";") { media = media[..<semicolon] }
        let trimmed = media.trimmingASCIISpaces()
        return trimmed.isEmpty || trimmed.lowercased() == "application/json"
    }

    /// The status for a body of another content type.
    public static func unsupportedContentType(_ contentType: String) -> GRPCStatus {
        GRPCStatus(.invalidArgument, "Content-Type \(contentType) is not supported: send application/json.")
    }
}
