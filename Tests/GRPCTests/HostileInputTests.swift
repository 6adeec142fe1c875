import Testing
@testable import GRPC

/// Deterministic pseudo-random inputs (a fixed-seed generator), so that failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("hostile input")
struct HostileInputTests {
    @Test("answers random and mutated JSON with a value or INVALID_ARGUMENT, never a crash")
    func randomJSON() {
        var random = SplitMix64(state: 42)
        let seed = Array(#"{"app":"x","keyId":"AAEC","appCheckToken":{"ttl":"1.5s"},"tokens":[{"token":"t"}],"count":"7"}"#.utf8)
        let alphabet = Array(#"{}[]":,\ 0123456789.eE+-truefalsnul"#.utf8)
        var accepted = 0
        for round in 0..<3000 {
            var text = seed
            for _ in 0..<(1 + round % 6) {
                let position = Int.random(in: 0..<text.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: text[position] = alphabet.randomElement(using: &random)!
                case 1: text.remove(at: position)
                default: text.insert(UInt8.random(in: 0...255, using: &random), at: position)
                }
            }
            do {
                let proto = try JSONTranscoder.protobuf(fromJSON: text, schema: TestSchemas.request)
                // Whatever was accepted must transcode back without error.
                _ = try JSONTranscoder.json(fromProtobuf: proto, schema: TestSchemas.request)
                accepted += 1
            } catch {
                #expect(error.code == .invalidArgument, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(accepted > 0)
    }

    @Test("answers random protobuf bytes on output with JSON or INTERNAL, never a crash")
    func randomProtobuf() {
        var random = SplitMix64(state: 7)
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            do {
                let json = try JSONTranscoder.json(fromProtobuf: bytes, schema: TestSchemas.request)
                #expect(json.first == UInt8(ascii: "{"))
            } catch {
                #expect(error.code == .internal)
            }
        }
    }
}
