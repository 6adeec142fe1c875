import Testing
import AppCheckMessages
import GRPC

@Suite("hostile protobuf input")
struct HostileProtobufTests {
    @Test("unpacks mutated messages into a value or INVALID_ARGUMENT, never a crash")
    func mutatedMessages() {
        var state: UInt64 = 99
        func next() -> UInt64 {
            // SplitMix64, fixed seed: failures reproduce.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let seeds = [
            Samples.exchangeAppAttestAssertionRequest.serializedBytes(),
            Samples.publicJwkSet.serializedBytes(),
            Samples.attestedKey.serializedBytes(),
        ]
        var decoded = 0
        for round in 0..<3000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + round % 4) {
                let position = Int(next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: next())
            }
            do {
                switch round % seeds.count {
                case 0: _ = try ExchangeAppAttestAssertionRequest(serializedBytes: bytes)
                case 1: _ = try PublicJwkSet(serializedBytes: bytes)
                default: _ = try AttestedKey(serializedBytes: bytes)
                }
                decoded += 1
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
        #expect(decoded > 0)
    }
}
