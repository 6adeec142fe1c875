import HTTP

extension Configuration {
    /// One backend or operator allowed to call the RPCs with effects, identified by a bearer token (its SHA-256 is
    /// configured, never the token) and/or a TLS client certificate (its names, on a listener with `clientCAFile`).
    ///
    /// ```json
    /// "callers": [
    ///   {"name": "ops", "role": "operator", "tokenHashes": ["<sha256 hex>"]},
    ///   {"name": "shop-backend", "role": "backend", "projects": ["my-project"],
    ///    "tokenHashes": ["<sha256 hex>"], "certificateNames": ["backend.shop.internal"]}
    /// ]
    /// ```
    public struct Caller: Sendable {
        /// What a caller may do.
        public enum Role: String, Sendable, CaseIterable {
            /// The KeyService (read and revoke attested keys), for every project.
            case `operator`
            /// VerifyAppCheckToken and the DeviceStateService, for its own projects only.
            case backend
        }

        /// For logs: who called.
        public var name: String
        public var role: Role
        /// The numbers and ids of the projects a backend acts for (both forms of each, so a request may name either).
        public var projects: Set<String>
        /// SHA-256 digests of the caller's bearer tokens.
        public var tokenHashes: [[UInt8]]
        /// Names (subjectAltName DNS or URI, or subject CN) of the client certificates that identify this caller.
        public var certificateNames: [String]

        public init(name: String, role: Role, projects: Set<String> = [], tokenHashes: [[UInt8]] = [],
                    certificateNames: [String] = []) {
            self.name = name
            self.role = role
            self.projects = projects
            self.tokenHashes = tokenHashes
            self.certificateNames = certificateNames
        }
    }

    /// `callers`, plus an operator named `admin` holding `admin.tokenHashes` (the older spelling).
    package static func readCallers(_ reader: JSONFieldReader, admin: Admin, projects: [Project]) -> [Caller] {
        let callers = reader.objects("callers", required: false).map { caller in
            caller.rejectUnknownKeys(except: ["name", "role", "projects", "tokenHashes", "certificateNames"])
            let name = caller.string("name") ?? ""
            let role = caller.choice("role", default: Caller.Role.backend, required: true)
            var scope = Set<String>()
            for (index, key) in caller.strings("projects", required: false).enumerated() {
                guard let project = projects.first(where: { $0.number == key || $0.id == key }) else {
                    caller.problem("\(caller.field("projects"))[\(index)]", "names no configured project")
                    continue
                }
                scope.formUnion([project.number, project.id])
            }
            if role == .backend && scope.isEmpty {
                caller.problem(caller.field("projects"), "a backend must name the projects it acts for")
            }
            if role == .operator && !scope.isEmpty {
                caller.problem(caller.field("projects"), "an operator acts for every project: leave projects out")
            }
            let tokenHashes = sha256Digests(caller, "tokenHashes", what: "bearer token")
            let certificateNames = caller.strings("certificateNames", required: false)
            if tokenHashes.isEmpty && certificateNames.isEmpty {
                caller.problem(caller.field("name"), "needs tokenHashes or certificateNames to be recognised by")
            }
            return Caller(name: name, role: role, projects: scope, tokenHashes: tokenHashes,
                          certificateNames: certificateNames)
        }
        let legacy = admin.tokenHashes.isEmpty ? [] : [Caller(name: "admin", role: .operator, tokenHashes: admin.tokenHashes)]
        let all = callers + legacy
        // One token or certificate name, one caller: otherwise which role it carries would depend on list order.
        var seenTokens = Set<[UInt8]>(), seenNames = Set<String>(), seenCallers = Set<String>()
        for caller in all {
            if !seenCallers.insert(caller.name).inserted {
                reader.problem("callers", "caller \(caller.name) appears more than once")
            }
            for hash in caller.tokenHashes where !seenTokens.insert(hash).inserted {
                reader.problem("callers", "a token hash of \(caller.name) is also another caller's")
            }
            for name in caller.certificateNames where !seenNames.insert(name).inserted {
                reader.problem("callers", "certificate name \(name) of \(caller.name) is also another caller's")
            }
        }
        return all
    }

    /// `listeners[].role` (`public` or `internal`) or `listeners[].services` (names of `ListenerServices`); a
    /// listener with neither serves everything.
    package static func readListenerServices(_ listener: JSONFieldReader) -> ListenerServices {
        let role = listener.string("role", default: "")
        let names = listener.strings("services", required: false)
        switch (role ?? "", names.isEmpty) {
        case ("", true):
            return .all
        case ("", false):
            var services: ListenerServices = []
            for (index, name) in names.enumerated() {
                guard let service = ListenerServices.byName.first(where: { $0.name == name })?.service else {
                    listener.problem("\(listener.field("services"))[\(index)]",
                                     "must be one of \(ListenerServices.byName.map(\.name).joined(separator: ", "))")
                    continue
                }
                services.insert(service)
            }
            return services
        case ("public", true):
            return .publicRole
        case ("internal", true):
            return .internalRole
        case (_, false):
            listener.problem(listener.field("role"), "name a role or a services list, not both")
            return []
        default:
            listener.problem(listener.field("role"), "must be public or internal")
            return []
        }
    }
}
