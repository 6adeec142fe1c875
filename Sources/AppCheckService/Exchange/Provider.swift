import AppAttest
import AppCheckMessages
import Basics
import Batching
import GRPC
import Observability
import Storage
import Tokens

/// The attestation providers, as the failure metric labels them.
enum Provider: String, Sendable {
    case appAttest = "app_attest"
    case debug
    case deviceCheck = "device_check"
    case custom
    case token = "app_check_token"
}
