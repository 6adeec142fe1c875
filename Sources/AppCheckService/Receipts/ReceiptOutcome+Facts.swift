import AppAttest
import AppCheckMessages
import Batching
import Crypto
import GRPC
import Storage
import Tokens

extension ReceiptOutcome {
    var isVerified: Bool {
        if case .verified = self { true } else { false }
    }

    var riskMetric: Int? {
        if case .verified(let receipt) = self { receipt.riskMetric } else { nil }
    }
}
