/// One simulated attestation: the object the app would send, and the parts a test may want to look at.
public struct SimulatedAttestation: Sendable {
    /// The CBOR attestation object `{fmt, attStmt: {x5c, receipt}, authData}`.
    public var object: [UInt8]
    /// The authenticator data inside it.
    public var authenticatorData: [UInt8]
    /// `SHA256(authenticatorData || clientDataHash)`.
    public var nonce: [UInt8]
    /// `x5c` as embedded: `[credential certificate, intermediate]` DER unless an option rewrote it.
    public var certificateChain: [[UInt8]]
    /// The receipt bytes embedded (nil when omitted).
    public var receipt: [UInt8]?
}

/// One simulated assertion.
public struct SimulatedAssertion: Sendable {
    /// The CBOR assertion object `{signature, authenticatorData}`.
    public var object: [UInt8]
    /// The authenticator data inside it.
    public var authenticatorData: [UInt8]
    /// The DER ECDSA signature inside it.
    public var signature: [UInt8]
    /// The counter written in the authenticator data.
    public var counter: UInt32
}
