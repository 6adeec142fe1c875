import Testing
@testable import attestd_bench

@Suite("CryptoBound")
struct CryptoBoundTests {
    private let bound = CryptoBound(p384Verify: 1000, p256Verify: 8000, rsa2048Sign: 2000, p256Sign: 24000, threads: 2)

    @Test("an exchange's bound adds the times of its operations")
    func exchangeBounds() {
        #expect(abs(bound.bound(.attestation, algorithm: "RS256")! - 1 / (1.0 / 1000 + 1.0 / 2000)) < 1e-9)
        #expect(abs(bound.bound(.assertion, algorithm: "ES256")! - 1 / (1.0 / 8000 + 1.0 / 24000)) < 1e-9)
        #expect(bound.bound(.challenge, algorithm: "RS256") == nil)
    }

    @Test("a mix's bound counts its challenges as free requests")
    func mixBound() {
        let mix: [RequestKind: Int] = [.attestation: 1, .assertion: 1, .challenge: 2]
        let seconds = 1 / bound.bound(.attestation, algorithm: "RS256")! + 1 / bound.bound(.assertion, algorithm: "RS256")!
        #expect(abs(bound.bound(mix: mix, algorithm: "RS256") - 4 / seconds) < 1e-6)
    }

    @Test("each operation succeeds through Crypto and reports positive rates")
    func operationsRun() {
        for operation in CryptoBound.Operation.allCases {
            let timed = operation.make()
            #expect(timed.once(), "\(operation)")
            let rate = timed.rate(seconds: 0.01)
            #expect(rate.wall > 0 && rate.cpu > 0)
        }
    }

    @Test("measuring again replaces only the rates of the operations asked for")
    func remeasure() {
        var bound = CryptoBound(p384Verify: 1, p256Verify: 1, rsa2048Sign: 1, p256Sign: 1, threads: 1)
        bound.remeasure(CryptoBound.operations(for: .assertion, algorithm: "ES256"), secondsEach: 0.01)
        #expect(bound.p256Verify > 1 && bound.p256Sign > 1)
        #expect(bound.p384Verify == 1 && bound.rsa2048Sign == 1)
        #expect(bound.wallClock.keys.sorted() == ["p256Sign", "p256Verify"])
    }

    @Test("each exchange measures its verification and the token signature")
    func operationsPerExchange() {
        #expect(CryptoBound.operations(for: .assertion, algorithm: "RS256") == [.p256Verify, .rsa2048Sign])
        #expect(CryptoBound.operations(for: .attestation, algorithm: "ES256") == [.p384Verify, .p256Sign])
        #expect(CryptoBound.operations(for: .challenge, algorithm: "ES256").isEmpty)
    }
}

@Suite("PhaseReport bounds")
struct PhaseReportBoundTests {
    @Test("a phase held to the closed-loop phase's bounds takes its bound and crypto cost, and keeps its own result")
    func heldToBounds() {
        var result = PhaseResult()
        result.kinds[RequestKind.assertion.rawValue].ok = 300
        result.measuredSeconds = 3
        var saturated = PhaseReport(name: "assertions", kinds: [.assertion], pacing: "closed", targetRate: nil, connections: 8,
                                    streams: 16, result: PhaseResult(), bound: 1000)
        saturated.cryptoCPUSecondsPerRequest = 0.002
        let open = PhaseReport(name: "assertions, open loop", kinds: [.assertion], pacing: "open", targetRate: 100, connections: 8,
                               streams: 16, result: result, bound: 900).heldToBounds(of: saturated)
        #expect(open.bound == 1000 && open.cryptoCPUSecondsPerRequest == 0.002)
        #expect(open.ratio == 0.1)
        #expect(open.name == "assertions, open loop" && open.targetRate == 100)
    }
}
