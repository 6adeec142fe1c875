import AppAttest
import Crypto
import HTTP
import Foundation
import Observability

extension Character {
    package var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
