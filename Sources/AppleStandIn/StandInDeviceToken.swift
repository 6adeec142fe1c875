import Basics

/// The device tokens the stand-in recognises, in place of the opaque ones `DCDevice.generateToken` returns:
/// standard base64 of a magic prefix, an environment letter, a validity letter and the device's identity. Tests
/// and scripts make them with ``base64``; anything else is refused like a garbled token.
public struct StandInDeviceToken: Sendable, Hashable {
    /// The environment the token was issued for; the stand-in refuses tokens from the other one (pitfall 17).
    public var environment: AppleEnvironment
    /// A stable identity for the device: the two bits are kept per device (and team).
    public var deviceID: String
    /// An expired token, which Apple answers with a 400 about the device token.
    public var isExpired: Bool

    /// The bytes every recognised token starts with.
    static let magic = Array("ATTESTD-DC1".utf8)

    public init(environment: AppleEnvironment, deviceID: String, isExpired: Bool = false) {
        self.environment = environment
        self.deviceID = deviceID
        self.isExpired = isExpired
    }

    /// The token as an app would send it: standard base64 with padding, no line breaks.
    public var base64: String {
        var bytes = Self.magic
        bytes.append(environment == .development ? UInt8(ascii: "D") : UInt8(ascii: "P"))
        bytes.append(isExpired ? UInt8(ascii: "X") : UInt8(ascii: "V"))
        bytes.append(contentsOf: deviceID.utf8)
        return Base64.standard.encode(bytes)
    }

    /// Reads a token made by ``base64``; nil for anything else.
    public init?(base64 text: String) {
        guard let bytes = Base64.standard.decode(text), bytes.count > Self.magic.count + 2,
              bytes.starts(with: Self.magic)
        else { return nil }
        let environmentByte = bytes[Self.magic.count]
        let validityByte = bytes[Self.magic.count + 1]
        switch environmentByte {
        case UInt8(ascii: "D"): environment = .development
        case UInt8(ascii: "P"): environment = .production
        default: return nil
        }
        switch validityByte {
        case UInt8(ascii: "V"): isExpired = false
        case UInt8(ascii: "X"): isExpired = true
        default: return nil
        }
        deviceID = String(decoding: bytes[(Self.magic.count + 2)...], as: UTF8.self)
    }
}
