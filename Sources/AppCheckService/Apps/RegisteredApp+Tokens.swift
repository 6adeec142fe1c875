import AppAttest
import AppCheckMessages
import Basics
import Batching
import GRPC
import Observability
import Storage
import Tokens

extension RegisteredApp {
    var tokenLifetime: TokenLifetime { TokenLifetime(seconds: Int64(configuration.tokenTTLSeconds)) ?? .default }

    var attestEnvironment: AppAttestEnvironment {
        configuration.environment == .production ? .production : .development
    }
}
