extension Configuration {
    /// A part of the configuration that a reload (SIGHUP) compares on its own, named as in the file.
    public struct Section: Sendable {
        /// The section's name in the file (`listeners`, `keys.tokenSigning`).
        public let name: String
        /// Whether a reload applies a change to it; otherwise the change waits for a restart.
        public let reloadable: Bool
        fileprivate let value: @Sendable (Configuration) -> Any
        /// Copies the section from one configuration into another: how a reload keeps a restart-only section.
        fileprivate let keep: @Sendable (inout Configuration, Configuration) -> Void
    }

    /// Every section, in the file's order. Reloadable: what requests are judged by (apps and their debug tokens,
    /// service accounts and DeviceCheck keys, callers, the token-signing, challenge and artifact keys, token
    /// settings, the gateway and its route policies, the log level). Restart-only: what the running machinery was
    /// built from (listeners and their TLS, event loops, limits, the verifier threads, the store, the trust roots,
    /// admission control, Apple's hosts, the receipt refresher, the session-ticket keys).
    public static let sections: [Section] = [
        section("listeners", reloadable: false, \.listeners),
        section("eventLoops", reloadable: false, \.eventLoops),
        section("logLevel", reloadable: true, \.logLevel),
        section("limits", reloadable: false, \.limits),
        section("keys.challengeKey", reloadable: true, \.keys.challengeKeyPath),
        section("keys.artifactKey", reloadable: true, \.keys.artifactKeyPath),
        section("keys.tokenSigning", reloadable: true, \.keys.tokenSigning),
        section("keys.sessionTicketKey", reloadable: false, \.keys.sessionTicketKeyPath),
        section("keys.generateMissing", reloadable: false, \.keys.generateMissing),
        section("challengeTtlSeconds", reloadable: true, \.challengeTTLSeconds),
        section("tokens", reloadable: true, \.tokens),
        section("verifier", reloadable: false, \.verifier),
        section("trust", reloadable: false, \.trust),
        section("callers", reloadable: true, \.callers),
        section("receipts", reloadable: false, \.receipts),
        section("store", reloadable: false, \.store),
        section("store.clockSkewSeconds", reloadable: false, \.storeClockSkewSeconds),
        section("projects", reloadable: true, \.projects),
        section("apple", reloadable: false, \.apple),
        section("gateway", reloadable: true, \.gateway),
        section("admission", reloadable: false, \.admission),
    ]

    private static func section<Value: Sendable>(
        _ name: String, reloadable: Bool, _ path: any WritableKeyPath<Configuration, Value> & Sendable
    ) -> Section {
        Section(name: name, reloadable: reloadable, value: { $0[keyPath: path] },
                keep: { configuration, running in configuration[keyPath: path] = running[keyPath: path] })
    }

    /// The sections that differ between this configuration and `other`, in the file's order.
    public func changedSections(comparedWith other: Configuration) -> [Section] {
        Self.sections.filter { section in
            CanonicalText.of(section.value(self)) != CanonicalText.of(section.value(other))
        }
    }

    /// `reloaded`'s reloadable sections with this (running) configuration's restart-only ones: what a reload
    /// applies, until a restart picks up the rest.
    public func applyingReloadable(from reloaded: Configuration) -> Configuration {
        var applied = reloaded
        for section in Self.sections where !section.reloadable { section.keep(&applied, self) }
        return applied
    }
}

/// A value's text with every stored member spelled out and set and dictionary members sorted, so that two values
/// read from the same file text compare equal whatever order their sets were built in.
enum CanonicalText {
    static func of(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first else { return "nil" }
            return of(wrapped.value)
        case .set:
            return "[" + mirror.children.map { of($0.value) }.sorted().joined(separator: ",") + "]"
        case .dictionary:
            return "[" + mirror.children.map { of($0.value) }.sorted().joined(separator: ",") + "]"
        case .collection, .tuple:
            return "(" + mirror.children.map { ($0.label ?? "") + ":" + of($0.value) }.joined(separator: ",") + ")"
        case .struct, .class, .enum:
            guard !mirror.children.isEmpty else { return "\(value)" }
            return "\(mirror.subjectType){" + mirror.children.map { ($0.label ?? "") + ":" + of($0.value) }
                .joined(separator: ",") + "}"
        default:
            return "\(value)"
        }
    }
}
