import Foundation

/// The JSON body of Apple's three DeviceCheck endpoints, read field by field so that each defect gets Apple's own
/// answer (a wrong type is as bad as a missing field).
struct DeviceCheckRequestBody: Decodable {
    var deviceToken: String?
    var transactionID: String?
    var timestamp: Int64?
    var bit0: Bool?
    var bit1: Bool?
    /// A bit was present but not a boolean.
    var hasMalformedBits = false

    private enum Key: String, CodingKey {
        case deviceToken = "device_token"
        case transactionID = "transaction_id"
        case timestamp
        case bit0
        case bit1
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        deviceToken = try? container.decodeIfPresent(String.self, forKey: .deviceToken)
        transactionID = try? container.decodeIfPresent(String.self, forKey: .transactionID)
        timestamp = try? container.decodeIfPresent(Int64.self, forKey: .timestamp)
        for key in [Key.bit0, .bit1] where container.contains(key) {
            guard let value = try? container.decode(Bool.self, forKey: key) else {
                hasMalformedBits = true
                continue
            }
            if key == .bit0 { bit0 = value } else { bit1 = value }
        }
    }

    static func parse(_ body: [UInt8]) -> DeviceCheckRequestBody? {
        try? JSONDecoder().decode(DeviceCheckRequestBody.self, from: Data(body))
    }
}
