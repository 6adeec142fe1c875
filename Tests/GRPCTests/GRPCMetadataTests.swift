import Testing
import GRPC

@Suite("gRPC metadata")
struct GRPCMetadataTests {
    @Test("parses grpc-timeout in every unit into nanoseconds")
    func timeouts() {
        #expect(GRPCTimeout(headerValue: "1H")?.nanoseconds == 3_600_000_000_000)
        #expect(GRPCTimeout(headerValue: "2M")?.nanoseconds == 120_000_000_000)
        #expect(GRPCTimeout(headerValue: "3S")?.nanoseconds == 3_000_000_000)
        #expect(GRPCTimeout(headerValue: "250m")?.nanoseconds == 250_000_000)
        #expect(GRPCTimeout(headerValue: "7u")?.nanoseconds == 7_000)
        #expect(GRPCTimeout(headerValue: "99999999n")?.nanoseconds == 99_999_999)
        #expect(GRPCTimeout(headerValue: "0S")?.nanoseconds == 0)
    }

    @Test("saturates a timeout too long for 64 bits")
    func saturates() {
        #expect(GRPCTimeout(headerValue: "99999999H")?.nanoseconds == Int64.max)
    }

    @Test("rejects malformed grpc-timeout values")
    func invalidTimeouts() {
        for value in ["", "S", "10", "123456789S", "1s", "1h", "-1S", "1.5S", " 1S", "1S ", "1SS", "１S"] {
            #expect(GRPCTimeout(headerValue: value) == nil, "\(value)")
        }
    }

    @Test("writes a timeout in the finest unit that fits 8 digits, never shorter")
    func writesTimeouts() {
        #expect(GRPCTimeout(nanoseconds: 5).headerValue == "5n")
        #expect(GRPCTimeout(nanoseconds: 2_000_000_000).headerValue == "2000000u")
        #expect(GRPCTimeout(nanoseconds: 300_000_000_001).headerValue == "300001m")
        for ns: Int64 in [1, 999_999_999, 123_456_789_012, 86_400_000_000_000] {
            let written = GRPCTimeout(nanoseconds: ns).headerValue
            #expect((GRPCTimeout(headerValue: written)?.nanoseconds ?? 0) >= ns, "\(written)")
        }
    }

    @Test("recognises gRPC content types")
    func contentTypes() {
        #expect(GRPCRequestHeaders.isGRPC(contentType: "application/grpc"))
        #expect(GRPCRequestHeaders.isGRPC(contentType: "application/grpc+proto"))
        #expect(GRPCRequestHeaders.isGRPC(contentType: "Application/GRPC; charset=utf-8"))
        #expect(!GRPCRequestHeaders.isGRPC(contentType: "application/grpc+json"))
        #expect(!GRPCRequestHeaders.isGRPC(contentType: "application/json"))
        #expect(!GRPCRequestHeaders.isGRPC(contentType: "application/grpc-web"))
    }

    @Test("accepts identity encoding only")
    func encodings() throws {
        try GRPCRequestHeaders.checkEncoding(String?.none)
        try GRPCRequestHeaders.checkEncoding("identity")
        try GRPCRequestHeaders.checkEncoding(" Identity ")
        #expect(throws: GRPCStatus.self) { try GRPCRequestHeaders.checkEncoding("gzip") }
        do {
            try GRPCRequestHeaders.checkEncoding("deflate")
        } catch {
            #expect(error.code == .unimplemented)
            #expect(error.message.contains("deflate"))
        }
    }

    @Test("builds normal response headers and trailers")
    func normalResponse() {
        #expect(GRPCResponseHead.headers.contains(HeaderField(":status", "200")))
        #expect(GRPCResponseHead.headers.contains(HeaderField("content-type", "application/grpc")))
        #expect(GRPCResponseHead.trailers(for: .ok) == [HeaderField("grpc-status", "0")])
        #expect(GRPCResponseHead.trailers(for: GRPCStatus(.permissionDenied, "App attestation failed.")) == [
            HeaderField("grpc-status", "7"), HeaderField("grpc-message", "App attestation failed."),
        ])
        #expect(GRPCResponseHead.trailers(for: GRPCStatus(.internal, "50% done")).last?.value == "50%25 done")
    }

    @Test("builds a trailers-only response with the status in the headers")
    func trailersOnly() {
        let fields = GRPCResponseHead.trailersOnly(for: GRPCStatus(.unimplemented, "Unknown method"))
        #expect(fields.first == HeaderField(":status", "200"))
        #expect(fields.contains(HeaderField("content-type", "application/grpc")))
        #expect(fields.contains(HeaderField("grpc-status", "12")))
        #expect(fields.contains(HeaderField("grpc-message", "Unknown method")))
    }
}
