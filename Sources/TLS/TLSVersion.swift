internal import COpenSSL

/// A TLS protocol version a connection may use or negotiated.
public enum TLSVersion: Sendable, Hashable {
    case tls12, tls13

    /// OpenSSL's number for the version (TLS1_2_VERSION, TLS1_3_VERSION).
    var openSSLValue: Int32 {
        switch self {
        case .tls12: return TLS1_2_VERSION
        case .tls13: return TLS1_3_VERSION
        }
    }

    init?(openSSLValue: Int32) {
        switch openSSLValue {
        case TLS1_2_VERSION: self = .tls12
        case TLS1_3_VERSION: self = .tls13
        default: return nil
        }
    }
}
