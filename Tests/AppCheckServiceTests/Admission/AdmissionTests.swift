@testable import AppCheckService
import Config
import GRPC
import Synchronization
import Testing

@Suite("Admission control")
struct AdmissionTests {
    let app = "1:123456789012:ios:0123456789abcdef"
    var appName: String { "projects/123456789012/apps/\(app)" }

    @Test("reads the app from field 1 of a request, skipping other fields first")
    func appFromProtobuf() {
        let name = Array(appName.utf8)
        // field 2 (varint 150), field 3 (fixed32), then field 1 (the name)
        let message: [UInt8] = [0x10, 0x96, 0x01, 0x1d, 1, 2, 3, 4, 0x0a, UInt8(name.count)] + name
        #expect(AppNamePeek.appID(protobuf: message[...]) == app[...])
        #expect(AppNamePeek.appID(protobuf: [0x0a, 0x05, 0x61][...]) == nil)  // length past the end
        #expect(AppNamePeek.appID(protobuf: [0x10, 0x01][...]) == nil)  // no field 1
    }

    @Test("reads the app from a REST path, before the method suffix and any query")
    func appFromPath() {
        #expect(AppNamePeek.appID(restPath: "/v1/\(appName):exchangeAppAttestAssertion") == app[...])
        #expect(AppNamePeek.appID(restPath: "/v1/\(appName):generateAppAttestChallenge?x=1") == app[...])
        #expect(AppNamePeek.appID(restPath: "/v1/jwks") == nil)
    }

    @Test("takes the host from IPv4 and bracketed IPv6 peers")
    func hosts() {
        #expect(AdmissionControl.host(of: "10.1.2.3:5555") == "10.1.2.3")
        #expect(AdmissionControl.host(of: "[::1]:443") == "::1")
    }

    @Test("a rate limiter admits each key's burst, independently of other keys")
    func rateLimiter() {
        let limiter = RateLimiter(rate: .init(requestsPerSecond: 1, burst: 3))
        #expect((0..<3).allSatisfy { _ in limiter.admit("a", now: 0) })
        #expect(!limiter.admit("a", now: 0))
        #expect(limiter.admit("b", now: 0))
        #expect(limiter.admit("a", now: 1_000_000_000))
    }

    @Test("a rate limiter stays within its key budget under many distinct keys")
    func rateLimiterBounded() {
        let limiter = RateLimiter(rate: .init(requestsPerSecond: 1, burst: 2), maxKeys: 64, shardCount: 4)
        for index in 0..<10_000 { _ = limiter.admit("10.0.\(index / 256).\(index % 256)", now: 0) }
        #expect(limiter.keyCount <= 64)
    }

    func control(_ configure: (inout Configuration.Admission) -> Void, depth: Int = 0, capacity: Int = 100) -> AdmissionControl {
        var admission = Configuration.Admission()
        configure(&admission)
        return AdmissionControl(configuration: admission, knownApps: [app], queueCapacity: capacity, queueDepth: { depth })
    }

    @Test("per-address limits answer RESOURCE_EXHAUSTED, health checks are exempt")
    func perAddress() {
        let admission = control { $0.perAddress = .init(requestsPerSecond: 1, burst: 2) }
        let peer = "192.0.2.1:1000"
        #expect(admission.check(method: "GenerateAppAttestChallenge", peer: peer, knownApps: [app], app: { nil }) == nil)
        #expect(admission.check(method: "GenerateAppAttestChallenge", peer: "192.0.2.1:2000", knownApps: [app], app: { nil }) == nil)
        let refused = admission.check(method: "GenerateAppAttestChallenge", peer: peer, knownApps: [app], app: { nil })
        #expect(refused?.code == .resourceExhausted)
        #expect(admission.check(method: "Check", peer: peer, knownApps: [app], app: { nil }) == nil)
        #expect(admission.check(method: "GenerateAppAttestChallenge", peer: "192.0.2.2:1000", knownApps: [app], app: { nil }) == nil)
        #expect(admission.rateLimited.value(["address", "GenerateAppAttestChallenge"]) == 1)
    }

    @Test("per-app limits count every address; unknown apps share one bucket")
    func perApp() {
        let admission = control { $0.perApp = .init(requestsPerSecond: 1, burst: 2) }
        for index in 0..<2 {
            #expect(admission.check(method: "ExchangeAppAttestAssertion", peer: "192.0.2.\(index):1", knownApps: [app], app: { app[...] }) == nil)
        }
        #expect(admission.check(method: "ExchangeAppAttestAssertion", peer: "192.0.2.9:1", knownApps: [app], app: { app[...] })?.code == .resourceExhausted)
        #expect(admission.check(method: "ExchangeAppAttestAssertion", peer: "192.0.2.9:1", knownApps: [app], app: { "made-up-1" }) == nil)
        #expect(admission.check(method: "ExchangeAppAttestAssertion", peer: "192.0.2.9:1", knownApps: [app], app: { "made-up-2" }) == nil)
        #expect(admission.check(method: "ExchangeAppAttestAssertion", peer: "192.0.2.9:1", knownApps: [app], app: { "made-up-3" })?.code == .resourceExhausted)
        // GetPublicJwkSet names no app: never limited per app.
        #expect(admission.check(method: "GetPublicJwkSet", peer: "192.0.2.9:1", knownApps: [app], app: { app[...] }) == nil)
    }

    @Test("above the high-water mark expensive RPCs are shed with UNAVAILABLE and cheap ones flow")
    func overload() {
        let admission = control({ $0.expensiveQueuePercent = 50 }, depth: 50, capacity: 100)
        #expect(admission.highWater == 50)
        #expect(admission.check(method: "ExchangeAppAttestAttestation", peer: "192.0.2.1:1", knownApps: [app], app: { nil })?.code == .unavailable)
        #expect(admission.check(method: "GenerateAppAttestChallenge", peer: "192.0.2.1:1", knownApps: [app], app: { nil }) == nil)
        #expect(admission.check(method: "GetPublicJwkSet", peer: "192.0.2.1:1", knownApps: [app], app: { nil }) == nil)
        #expect(admission.check(method: "VerifyAppCheckToken", peer: "192.0.2.1:1", knownApps: [app], app: { nil }) == nil)
        #expect(admission.shedForOverload.load(ordering: .relaxed) == 1)
        let calm = control({ $0.expensiveQueuePercent = 50 }, depth: 49, capacity: 100)
        #expect(calm.check(method: "ExchangeAppAttestAttestation", peer: "192.0.2.1:1", knownApps: [app], app: { nil }) == nil)
    }

    @Test("the admission section is read, with defaults for what it omits, and checked")
    func configuration() throws {
        let base = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"\(app)","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],"environment":"development"}]}]
            """
        let parsed = try Configuration.parse(json: Array((base + """
            ,"admission":{"maxConnectionsPerAddress":8,"responseDrainTimeoutSeconds":5,"perAddress":{"requestsPerSecond":10,"burst":20},
                          "perApp":{"requestsPerSecond":100}}}
            """).utf8), baseDirectory: "/")
        #expect(parsed.admission.maxConnectionsPerAddress == 8)
        #expect(parsed.admission.perAddress?.burst == 20)
        #expect(parsed.admission.perApp?.burst == 100)
        #expect(parsed.admission.handshakeTimeoutSeconds == 10)
        #expect(parsed.admission.responseDrainTimeoutSeconds == 5)
        #expect(parsed.admission.expensiveQueuePercent == 75)
        let defaults = try Configuration.parse(json: Array((base + "}").utf8), baseDirectory: "/")
        #expect(defaults.admission.perAddress == nil)
        #expect(defaults.admission.maxConnectionsPerAddress == 0)
        #expect(defaults.admission.responseDrainTimeoutSeconds == 30)
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse(json: Array((base + #","admission":{"perApp":{"requestsPerSecond":0}}}"#).utf8), baseDirectory: "/")
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse(json: Array((base + #","admission":{"bogus":1}}"#).utf8), baseDirectory: "/")
        }
    }
}
