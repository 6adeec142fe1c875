/// ASCII hex digits, for the percent-encoding of REST paths and of grpc-message. The same as Crypto's `Hex`, which
/// this module does not depend on (it depends on nothing).
enum HexDigit {
    /// The value of one hex digit (either case), or nil.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
