import AppAttest
public import Config
/// The configured projects and apps, looked up by the resource names clients send
/// (`projects/{project number or id}/apps/{app id}`: the iOS SDK sends the project id, other clients the number).
public struct AppRegistry: Sendable {
    private let appsByProjectKey: [String: [String: RegisteredApp]]
    /// Every valid resource name, in both project forms, for a lookup that is one hash on the hot path.
    private let appsByResourceName: [String: RegisteredApp]

    public init(projects: [Configuration.Project]) {
        var table: [String: [String: RegisteredApp]] = [:]
        for project in projects {
            var apps: [String: RegisteredApp] = [:]
            for app in project.apps {
                apps[app.appID] = RegisteredApp(projectNumber: project.number, projectID: project.id, configuration: app)
            }
            table[project.number] = apps
            table[project.id] = apps
        }
        appsByProjectKey = table
        var names: [String: RegisteredApp] = [:]
        for (projectKey, apps) in table {
            for (appID, app) in apps { names["projects/\(projectKey)/apps/\(appID)"] = app }
        }
        appsByResourceName = names
    }

    /// The ids of the apps of the project `projectKey` (its number or id), sorted; empty for an unknown project.
    func appIDs(inProject projectKey: String) -> [String] {
        appsByProjectKey[projectKey]?.keys.sorted() ?? []
    }

    /// The app named by `resourceName`.
    /// - Throws: `.invalidName` when the name is not `projects/*/apps/*`, `.unknownApp` when no such app is configured.
    public func app(named resourceName: String) throws(AppLookupError) -> RegisteredApp {
        if let app = appsByResourceName[resourceName] { return app }
        let parts = resourceName.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "apps", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidName(resourceName)
        }
        guard let apps = appsByProjectKey[String(parts[1])] else { throw .unknownProject(String(parts[1])) }
        guard let app = apps[String(parts[3])] else { throw .unknownApp(String(parts[3])) }
        return app
    }

    /// True when `projectKey` (number or id) names a configured project.
    public func hasProject(_ projectKey: String) -> Bool { appsByProjectKey[projectKey] != nil }
}

/// One configured app, with what requests about it need precomputed.
public struct RegisteredApp: Sendable {
    public let projectNumber: String
    public let projectID: String
    public let configuration: Configuration.App
    /// The App IDs (`TEAMID.bundle`) attestations may name: the app's and its App Clip's.
    public let appleAppIDs: [String]
    /// The same, parsed and hashed as the verifiers take them (validated at start, so none is dropped). Made once:
    /// building them for each exchange cost more than the rest of opening its challenge.
    let verifierAppIDs: [AppID]

    init(projectNumber: String, projectID: String, configuration: Configuration.App) {
        self.projectNumber = projectNumber
        self.projectID = projectID
        self.configuration = configuration
        appleAppIDs = configuration.bundleIDs.map { "\(configuration.teamID).\($0)" }
        verifierAppIDs = appleAppIDs.compactMap(AppID.init)
    }

    public var appID: String { configuration.appID }
}

/// Why a resource name did not lead to an app.
public enum AppLookupError: Error, Sendable, Equatable {
    case invalidName(String)
    case unknownProject(String)
    case unknownApp(String)
}
