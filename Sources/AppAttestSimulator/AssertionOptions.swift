/// Knobs for one simulated assertion. The defaults give an assertion Apple's steps accept with the key's next
/// counter.
public struct AssertionOptions: Sendable {
    /// The counter to write; nil means one more than the key's last. Either way the key's counter becomes it.
    public var counter: UInt32?
    /// authenticatorData rpIdHash; nil means SHA-256 of the device's App ID.
    public var rpIDHash: [UInt8]?
    /// authenticatorData flags; Apple writes 0x40 (AT) although no credential data follows.
    public var flags: UInt8 = 0x40
    /// Signs with a different key (breaks: signature).
    public var signingKey: SimulatedKey?
    /// Rewrites authenticatorData after it was signed (breaks: signature).
    public var authenticatorDataAfterSigning: (@Sendable ([UInt8]) -> [UInt8])?
    /// Bytes appended after the CBOR map (breaks: malformed, trailing data).
    public var trailingBytes: [UInt8] = []

    public init() {}

    /// Options with `edit` applied: `.init { $0.counter = 5 }`.
    public init(_ edit: (inout AssertionOptions) -> Void) {
        edit(&self)
    }
}
