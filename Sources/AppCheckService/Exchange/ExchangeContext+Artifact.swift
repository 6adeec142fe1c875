import AppAttest
import AppCheckMessages
import Batching
import Crypto
import GRPC
import Storage
import Tokens

extension ExchangeContext {
    /// `artifact` sealed for the client; INTERNAL, with the reason logged, when OpenSSL cannot seal.
    func seal(_ artifact: Artifact, context: RPCContext) throws(GRPCStatus) -> [UInt8] {
        do {
            return try artifacts.seal(artifact)
        } catch {
            context.logger.error("could not seal the artifact", [("error", error.description)])
            throw GRPCStatus(.internal, "Could not seal the artifact.", cause: error)
        }
    }
}
