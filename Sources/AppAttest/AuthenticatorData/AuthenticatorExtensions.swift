/// The extensions map iOS 27 appends to authenticator data (after the COSE key, or after the 37 bytes of an
/// assertion), even though the ED flag stays clear.
public struct AuthenticatorExtensions: Sendable, Equatable {
    /// `apple_validation_category_01`: how the app was signed (1 platform, 2 TestFlight, 3 development, 4 App Store,
    /// 5 Enterprise, 6 Developer ID, 7 local signing, …); nil when absent.
    public var validationCategory: UInt32?
    /// `apple_bundle_version_01`: the app's CFBundleVersion; nil when absent.
    public var bundleVersion: String?
    /// The whole map as decoded, unknown keys included; nil when the object had no extensions.
    public var map: CBOR?

    /// No extensions (objects from before iOS 27).
    public static let none = AuthenticatorExtensions(validationCategory: nil, bundleVersion: nil, map: nil)

    public init(validationCategory: UInt32?, bundleVersion: String?, map: CBOR?) {
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
        self.map = map
    }

    /// Parses what follows the fixed part of authenticator data: nothing, or exactly one CBOR map.
    init(_ trailing: ArraySlice<UInt8>) throws(AppAttestError) {
        guard !trailing.isEmpty else {
            self = .none
            return
        }
        let map: CBOR
        do {
            map = try CBOR.decode(Array(trailing))
        } catch {
            throw AppAttestError(.malformed("authData.extensions"), error.description)
        }
        guard case .map = map else {
            throw AppAttestError(.malformed("authData.extensions"), "the bytes after the fixed part are not a CBOR map")
        }
        var category: UInt32?
        switch map["apple_validation_category_01"] {
        case nil: category = nil
        // Apple's sample writes a 4-byte little-endian byte string; some servers also see a plain integer.
        case .bytes(let bytes)? where bytes.count == 4:
            category = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        case .unsigned(let value)? where value <= UInt64(UInt32.max): category = UInt32(value)
        default:
            throw AppAttestError(.malformed("authData.extensions"), "apple_validation_category_01 is not a UInt32")
        }
        var version: String?
        switch map["apple_bundle_version_01"] {
        case nil: version = nil
        case .text(let text)?: version = text
        default: throw AppAttestError(.malformed("authData.extensions"), "apple_bundle_version_01 is not text")
        }
        self.init(validationCategory: category, bundleVersion: version, map: map)
    }
}
