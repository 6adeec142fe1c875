import AppCheckMessages
@testable import AppCheckService
import Config
import Dispatch
import Foundation
import Glibc
import HTTP
import Observability
import Synchronization
import Testing

/// Answers the JWKS with one key whose `kid` names its generation; while `gate` is set, only once the test opens it,
/// from a thread of its own (never blocking the loop), having said on `started` that the request reached it.
struct GenerationJWKSHandler: UnaryHandler {
    let generation: Int
    let gate: DispatchSemaphore?
    let started: DispatchSemaphore?

    func handle(_ request: GetPublicJwkSetRequest, context: RPCContext, reply: RPCReply<PublicJwkSet>) {
        let answer = PublicJwkSet(keys: [PublicJwk(kid: "generation-\(generation)")])
        guard let gate else { return reply.succeed(answer) }
        Thread { [started] in
            started?.signal()
            gate.wait()
            reply.succeed(answer)
        }.start()
    }
}

@Suite("Configuration generations in the router")
struct GenerationSwapTests {
    static func generation(_ number: Int, gate: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil) -> ServingGeneration {
        let handler = GenerationJWKSHandler(generation: number, gate: gate, started: started)
        return ServingGeneration(
            number: number, endpoints: [RPCEndpoint(AppCheckRPC.getPublicJwkSet.method, handler, service: .jwks)],
            listenerServices: [.all], gateway: nil, knownApps: [])
    }

    /// `GET /v1/jwks` over HTTP/1.1: the whole answer, read until the server closes.
    static func getJWKS(port: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /v1/jwks HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    @Test("a request in flight answers by the generation it started with; one dispatched after the swap by the new one")
    func inFlightKeepsItsGeneration() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let router = ServiceRouter(
            generation: Self.generation(1, gate: gate, started: started), maxMessageBytes: 65_536,
            metrics: RequestMetrics(methods: ["GetPublicJwkSet"]), registry: MetricsRegistry(), health: HealthState(),
            logger: Logger(label: "test"))
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(listeners: [HTTPListener(host: "127.0.0.1", port: 0)], eventLoopCount: 2),
            handler: router, logger: Logger(label: "test"))
        try server.start()
        defer {
            server.beginGracefulShutdown(deadlineSeconds: 1)
            server.waitUntilStopped()
        }
        let port = server.boundAddresses[0].port

        let first = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Thread {
            first.set(Result { try Self.getJWKS(port: port) })
            done.signal()
        }.start()
        #expect(started.wait(timeout: .now() + 10) == .success, "the first request never reached its handler")

        router.install(Self.generation(2))
        #expect(router.generation.number == 2)
        let second = try Self.getJWKS(port: port)
        #expect(second.hasPrefix("HTTP/1.1 200"), "\(second)")
        #expect(second.contains("generation-2"), "\(second)")
        #expect(done.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "the first request was answered before its gate opened")

        gate.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let answer = try first.get()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.contains("generation-1"), "\(answer)")
        #expect(!answer.contains("generation-2"), "\(answer)")
    }
}

/// One thread's result, handed to the test.
final class ResultBox: Sendable {
    private let result = Mutex<Result<String, any Error>?>(nil)

    func set(_ result: Result<String, any Error>) { self.result.withLock { $0 = result } }
    func get() throws -> String { try self.result.withLock { $0 }!.get() }
}

@Suite("The gateway's cache metric across generations")
struct GatewayCacheMetricTests {
    static func rendered(_ metric: GatewayCacheMetric) -> String {
        var output = ""
        metric.render(into: &output)
        return output
    }

    @Test("a replaced cache's hits and misses stay counted, so the family never goes down")
    func carriesCounts() {
        let metric = GatewayCacheMetric()
        let first = VerifiedTokenCache(capacity: 8)
        metric.use(first)
        first.insert(TokenDigest(token: "a"), GatewayPiecesTests.token("a", expiresAt: 100))
        _ = first.lookup(TokenDigest(token: "a"), now: 0)
        _ = first.lookup(TokenDigest(token: "b"), now: 0)
        let second = VerifiedTokenCache(capacity: 8)
        metric.use(second)
        _ = second.lookup(TokenDigest(token: "a"), now: 0)
        let text = Self.rendered(metric)
        #expect(text.contains("attestd_gateway_token_cache_total{result=\"hit\"} 1\n"), "\(text)")
        #expect(text.contains("attestd_gateway_token_cache_total{result=\"miss\"} 2\n"), "\(text)")
        metric.use(nil)
        #expect(Self.rendered(metric) == text)
    }
}
