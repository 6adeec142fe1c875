import Crypto

/// Standard base64 (`+/`, padded), the alphabet of App Attest key identifiers and of PEM.
enum Base64Text {
    static func standard(_ bytes: [UInt8]) -> String {
        // Base64URL's alphabet differs only in its last two letters, and it leaves out the padding.
        let unpadded = Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }
        return String(unpadded) + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
    }
}
