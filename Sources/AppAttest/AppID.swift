import Crypto

/// An App ID, `<TeamID>.<bundleID>`: what the rpIdHash of App Attest authenticator data is the SHA-256 of.
public struct AppID: Sendable, Hashable, CustomStringConvertible {
    /// The App ID prefix (usually the team ID).
    public let teamID: String
    /// The bundle identifier.
    public let bundleID: String
    /// SHA-256 of `string`, as authenticator data carries it.
    public let rpIDHash: [UInt8]

    /// Parses `TEAMID.bundle.id`, splitting at the first dot; nil when either side is empty.
    public init?(_ string: String) {
        guard let dot = string.firstIndex(of: "."), dot != string.startIndex,
              string.index(after: dot) != string.endIndex
        else { return nil }
        self.teamID = String(string[..<dot])
        self.bundleID = String(string[string.index(after: dot)...])
        self.rpIDHash = SHA256.hash(Array(string.utf8))
    }

    /// `TEAMID.bundle.id`.
    public var string: String { "\(teamID).\(bundleID)" }
    public var description: String { string }
}
