import AppCheckMessages
import Basics
import GRPC
import Tokens

extension AppRegistry {
    /// The app a request names, or the status the contract gives: INVALID_ARGUMENT for a malformed name, NOT_FOUND
    /// for an app or project this node does not serve.
    func resolve(_ resourceName: String) throws(GRPCStatus) -> RegisteredApp {
        do {
            return try app(named: resourceName)
        } catch {
            switch error {
            case .invalidName(let name):
                throw GRPCStatus(.invalidArgument, "app must be projects/{project}/apps/{app_id}, got \"\(name)\".")
            case .unknownProject(let project):
                throw GRPCStatus(.notFound, "Project \(project) is not served here.")
            case .unknownApp(let app):
                throw GRPCStatus(.notFound, "App \(app) is not configured.")
            }
        }
    }
}
