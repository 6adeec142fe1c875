/// The iOS 27 extensions map Apple appends to authenticator data (after the COSE key of an attestation, after the
/// first 37 bytes of an assertion) without setting the ED flag.
public struct SimulatedExtensions: Sendable, Equatable {
    /// `apple_validation_category_01`, written as Apple does: a 4-byte little-endian byte string
    /// (1 platform, 2 TestFlight, 3 development, 4 App Store, 5 Enterprise, …).
    public var validationCategory: UInt32?
    /// `apple_bundle_version_01` (CFBundleVersion), a text string.
    public var bundleVersion: String?
    /// Further entries, appended after the two above, for tests of unknown keys or odd value types.
    public var additionalEntries: [(key: CBORValue, value: CBORValue)]

    public init(validationCategory: UInt32? = nil, bundleVersion: String? = nil, additionalEntries: [(key: CBORValue, value: CBORValue)] = []) {
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
        self.additionalEntries = additionalEntries
    }

    /// What Apple's guide vector carries: bundle version "1", validation category 1 (platform).
    public static let appleGuideSample = SimulatedExtensions(validationCategory: 1, bundleVersion: "1")

    /// The CBOR map, in the key order of Apple's sample (bundle version first).
    public var encoded: [UInt8] {
        var entries: [(key: CBORValue, value: CBORValue)] = []
        if let bundleVersion {
            entries.append((.text("apple_bundle_version_01"), .text(bundleVersion)))
        }
        if let validationCategory {
            let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: validationCategory >> ($0 * 8)) }
            entries.append((.text("apple_validation_category_01"), .bytes(littleEndian)))
        }
        return CBORValue.map(entries + additionalEntries).encoded
    }

    public static func == (lhs: SimulatedExtensions, rhs: SimulatedExtensions) -> Bool {
        lhs.encoded == rhs.encoded
    }
}
