import Basics
public import Tokens

extension Configuration {
    /// One entry of `keys.tokenSigning`: a path (untimed: published and signing since forever, so the last such key
    /// of `tokens.algorithm` signs), or `{"file": …, "publishFrom": RFC 3339, "signFrom": RFC 3339}` for a key
    /// brought in by a staged rotation.
    public struct TokenSigningKey: Sendable, Hashable {
        /// The PEM private key's file.
        public var path: String
        /// When it is published and when it starts signing; nil: untimed.
        public var timing: SigningKeyTiming?

        public init(path: String, timing: SigningKeyTiming? = nil) {
            self.path = path
            self.timing = timing
        }
    }
}

extension Configuration.Keys {
    /// The files of `tokenSigning`, in the order configured.
    public var tokenSigningKeyPaths: [String] { tokenSigning.map(\.path) }
}

extension Configuration {
    /// `keys.tokenSigning`: a non-empty array of paths and `{file, publishFrom, signFrom}` objects. The schedule
    /// itself (how long a key is published before it signs, which key signs when) is checked with the keys, by
    /// `SigningKeySet`.
    static func readTokenSigning(_ keys: JSONFieldReader, resolve: (String) -> String) -> [TokenSigningKey] {
        keys.stringsOrObjects("tokenSigning").compactMap { element in
            switch element {
            case .string(let path):
                return TokenSigningKey(path: resolve(path))
            case .object(let entry):
                entry.rejectUnknownKeys(except: ["file", "publishFrom", "signFrom"])
                let file = entry.string("file")
                let publishFrom = time(entry, "publishFrom")
                let signFrom = time(entry, "signFrom")
                guard let file, let publishFrom, let signFrom else { return nil }
                if file.isEmpty { entry.problem(entry.field("file"), "must name the key's PEM file") }
                return TokenSigningKey(path: resolve(file), timing: SigningKeyTiming(publishFrom: publishFrom, signFrom: signFrom))
            }
        }
    }

    /// A required RFC 3339 time, in Unix seconds (a fraction is dropped).
    private static func time(_ entry: JSONFieldReader, _ name: String) -> Int64? {
        guard let text = entry.string(name) else { return nil }
        guard let time = RFC3339.parse(text), time.second < 60 else {
            entry.problem(entry.field(name), "must be an RFC 3339 time such as 2026-07-01T00:00:00Z, not \"\(text)\"")
            return nil
        }
        return time.unixSeconds
    }
}
