internal import COpenSSL

/// Standard base64 (`+/`, padded), the alphabet of App Attest key identifiers and of PEM.
enum Base64Text {
    static func standard(_ bytes: [UInt8]) -> String {
        var encoded = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let count = EVP_EncodeBlock(&encoded, bytes, Int32(bytes.count))
        return String(decoding: encoded.prefix(Int(count)), as: UTF8.self)
    }
}
