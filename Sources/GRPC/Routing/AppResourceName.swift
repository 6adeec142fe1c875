/// An app's resource name, `projects/{project number or id}/apps/{app id}`, checked.
public struct AppResourceName: Hashable, Sendable, CustomStringConvertible {
    /// The project number (`123456789012`) or id (`attestd-dev`), as the client wrote it.
    public let project: String
    /// The Firebase app id (`1:123456789012:ios:0123456789abcdef`).
    public let appID: String

    public init(project: String, appID: String) {
        self.project = project
        self.appID = appID
    }

    /// Parses `name`.
    ///
    /// - Throws: INVALID_ARGUMENT naming `field` when `name` is not `projects/*/apps/*` with non-empty parts.
    public init(parsing name: String, field: String = "app") throws(GRPCStatus) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "apps", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw GRPCStatus(.invalidArgument, "Invalid resource name for '\(field)': \"\(name)\" is not projects/*/apps/*.")
        }
        project = String(parts[1])
        appID = String(parts[3])
    }

    /// `projects/{project}/apps/{appID}`.
    public var description: String { "projects/\(project)/apps/\(appID)" }
}

/// A project's resource name, `projects/{project number or id}`, checked.
public struct ProjectResourceName: Hashable, Sendable, CustomStringConvertible {
    /// The project number or id, as the client wrote it.
    public let project: String

    public init(project: String) {
        self.project = project
    }

    /// Parses `name`.
    ///
    /// - Throws: INVALID_ARGUMENT naming `field` when `name` is not `projects/*` with a non-empty project.
    public init(parsing name: String, field: String = "project") throws(GRPCStatus) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "projects", !parts[1].isEmpty else {
            throw GRPCStatus(.invalidArgument, "Invalid resource name for '\(field)': \"\(name)\" is not projects/*.")
        }
        project = String(parts[1])
    }

    /// `projects/{project}`.
    public var description: String { "projects/\(project)" }
}
