import Crypto

/// A simulated iOS device running one app: it generates App Attest keys, attests them through a
/// `SimulatedAppleCA` (with a receipt from a `SimulatedReceiptCA`), and makes assertions with increasing counters.
///
/// ```swift
/// let device = SimulatedDevice(appID: "TEAMID1234.com.example.app", ca: ca, receiptCA: receiptCA)
/// let key = device.generateKey()
/// let attestation = device.attest(key, clientDataHash: SHA256.hash(challenge))
/// let assertion = device.assert(key, clientDataHash: SHA256.hash(payload))
/// ```
///
/// Safe to share between threads; each key's counter advances atomically.
public final class SimulatedDevice: Sendable {
    /// The App ID `TEAMID.bundleID` the app is signed with.
    public let appID: String
    public let environment: SimulatedEnvironment
    public let ca: SimulatedAppleCA
    public let receiptCA: SimulatedReceiptCA
    /// The iOS 27 extensions map this device writes by default (nil: an older OS that writes none).
    public let extensions: SimulatedExtensions?

    /// - Parameter appID: `TEAMID.bundleID`; its SHA-256 is the rpIdHash.
    public init(
        appID: String,
        environment: SimulatedEnvironment = .production,
        ca: SimulatedAppleCA,
        receiptCA: SimulatedReceiptCA,
        extensions: SimulatedExtensions? = nil
    ) {
        self.appID = appID
        self.environment = environment
        self.ca = ca
        self.receiptCA = receiptCA
        self.extensions = extensions
    }

    /// SHA-256 of the App ID, the rpIdHash Apple writes.
    public var rpIDHash: [UInt8] { SHA256.hash(Array(appID.utf8)) }

    /// A fresh P-256 key, as `DCAppAttestService.generateKey`.
    public func generateKey() -> SimulatedKey {
        SimulatedKey()
    }

    /// An attestation object for `key`, as `DCAppAttestService.attestKey(_:clientDataHash:)` returns it.
    ///
    /// - Parameters:
    ///   - clientDataHash: the bytes the app passes to attestKey (normally SHA-256 of the server's challenge).
    ///   - extensions: the iOS 27 extensions map; nil means the device's default.
    public func attest(
        _ key: SimulatedKey,
        clientDataHash: [UInt8],
        extensions: SimulatedExtensions? = nil,
        options: AttestationOptions = AttestationOptions()
    ) -> [UInt8] {
        attestation(key, clientDataHash: clientDataHash, extensions: extensions, options: options).object
    }

    /// An assertion object, as `DCAppAttestService.generateAssertion(_:clientDataHash:)` returns it, with the
    /// key's next counter.
    ///
    /// - Parameters:
    ///   - clientDataHash: the bytes the app passes to generateAssertion (normally SHA-256 of its request).
    ///   - extensions: the iOS 27 extensions map; nil means the device's default.
    public func assert(
        _ key: SimulatedKey,
        clientDataHash: [UInt8],
        extensions: SimulatedExtensions? = nil,
        options: AssertionOptions = AssertionOptions()
    ) -> [UInt8] {
        assertion(key, clientDataHash: clientDataHash, extensions: extensions, options: options).object
    }
}
