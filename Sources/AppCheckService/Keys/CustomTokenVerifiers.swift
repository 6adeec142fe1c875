import Config
import Crypto
import Foundation
import Tokens

/// The custom-token verifier of each project that names service accounts, keyed by project number.
enum CustomTokenVerifiers {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func load(_ projects: [Configuration.Project]) throws -> [String: CustomTokenVerifier] {
        var verifiers: [String: CustomTokenVerifier] = [:]
        for project in projects where !project.serviceAccounts.isEmpty {
            let accounts = try project.serviceAccounts.map { account in
                guard let pem = try? String(contentsOfFile: account.publicKeyPath, encoding: .utf8) else {
                    throw Problem(description: "\(account.publicKeyPath): cannot be read")
                }
                do {
                    return ServiceAccountKey(email: account.email, publicKey: try JWSPublicKey(pem: pem))
                } catch {
                    throw Problem(description: "\(account.publicKeyPath): \(error)")
                }
            }
            verifiers[project.number] = CustomTokenVerifier(serviceAccounts: accounts)
        }
        return verifiers
    }
}
