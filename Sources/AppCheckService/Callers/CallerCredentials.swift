import Config
import Crypto
import GRPC
import HTTP

/// Who called: the configured caller whose bearer token (`authorization: Bearer <token>`, its SHA-256 compared in
/// constant time) or verified TLS client certificate the request carries.
///
/// The RPCs with effects ask for it on every listener, whatever its role: no credential is UNAUTHENTICATED, one
/// that may not do this (an operator's for a backend RPC, a backend's for another project) is PERMISSION_DENIED.
struct CallerCredentials: Sendable {
    /// What an RPC needs its caller to be allowed.
    enum Permission: Sendable {
        /// The KeyService.
        case manageKeys
        /// VerifyAppCheckToken and the two bits, for the project named by its number or id.
        case actForProject(String)
    }

    private let callers: [Configuration.Caller]

    init(callers: [Configuration.Caller]) {
        self.callers = callers
    }

    /// The caller the request's credentials name.
    /// - Throws: UNAUTHENTICATED when the request carries no credential, or a bearer token no caller holds;
    ///   PERMISSION_DENIED when its verified client certificate names no caller.
    @discardableResult
    func authenticate(_ context: RPCContext) throws(GRPCStatus) -> Configuration.Caller {
        if let header = context.authorization {
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
                throw GRPCStatus(.unauthenticated, "The authorization header must be a bearer token.")
            }
            let digest = SHA256.hash(Array(header.utf8.dropFirst(7)))
            // Every hash is compared, so the time taken does not tell which caller (if any) came close.
            var found: Configuration.Caller?
            for caller in callers {
                for hash in caller.tokenHashes where ConstantTime.equals(hash, digest) { found = caller }
            }
            guard let found else {
                context.logger.warning("call with an unknown bearer token")
                throw GRPCStatus(.unauthenticated, "The bearer token is not valid.")
            }
            return found
        }
        if let certificate = context.clientCertificate {
            guard let found = callers.first(where: { caller in
                caller.certificateNames.contains(where: certificate.names.contains)
            }) else {
                context.logger.warning("call with a client certificate that names no caller", [("subject", certificate.subject)])
                throw GRPCStatus(.permissionDenied, "The client certificate is not a configured caller's.")
            }
            return found
        }
        throw GRPCStatus(.unauthenticated, "This RPC requires a caller credential: a bearer token or a client certificate.")
    }

    /// Authenticates the request's caller and checks that it may do `permission`.
    @discardableResult
    func authorize(_ context: RPCContext, _ permission: Permission) throws(GRPCStatus) -> Configuration.Caller {
        let caller = try authenticate(context)
        try check(caller, may: permission, context)
        return caller
    }

    /// Checks that an authenticated `caller` may do `permission`.
    func check(_ caller: Configuration.Caller, may permission: Permission, _ context: RPCContext) throws(GRPCStatus) {
        switch (permission, caller.role) {
        case (.manageKeys, .operator):
            return
        case (.actForProject(let project), .backend) where caller.projects.contains(project):
            return
        case (.manageKeys, _):
            context.logger.warning("KeyService call by a non-operator", [("caller", caller.name)])
            throw GRPCStatus(.permissionDenied, "Caller \(caller.name) may not call the KeyService.")
        case (.actForProject(let project), _):
            context.logger.warning("call for another project", [("caller", caller.name), ("project", project)])
            throw GRPCStatus(.permissionDenied, "Caller \(caller.name) may not act for project \(project).")
        }
    }
}

extension CallerCredentials {
    /// Authorizes a backend RPC about the app named `projects/{project}/apps/{app}`: the caller must act for that
    /// project. Checked on the name as sent, before the app is looked up, so a backend learns nothing of another
    /// project's apps; a malformed name is INVALID_ARGUMENT once the caller is known.
    func authorizeBackend(_ context: RPCContext, appName: String) throws(GRPCStatus) {
        let caller = try authenticate(context)
        let parts = appName.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "apps", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw GRPCStatus(.invalidArgument, "app must be projects/{project}/apps/{app}, not \(appName).")
        }
        try check(caller, may: .actForProject(String(parts[1])), context)
    }
}
