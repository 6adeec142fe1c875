import Foundation

/// Standard base64 (with `+/` and padding), the alphabet Apple's device tokens and receipts use.
enum StandardBase64 {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// Strict decoding: nil for anything that is not padded standard base64 (line breaks included).
    static func decode(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, let data = Data(base64Encoded: text) else { return nil }
        return Array(data)
    }
}
