/// The protocol a request arrived over.
public enum HTTPVersion: Sendable {
    case http1_1
    case http2
}
