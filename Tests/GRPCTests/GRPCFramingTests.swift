import Testing
import GRPC

@Suite("gRPC framing")
struct GRPCFramingTests {
    @Test("frames a message behind a 5-byte big-endian prefix")
    func frames() {
        #expect(GRPCFraming.frame([0xAA, 0xBB]) == [0, 0, 0, 0, 2, 0xAA, 0xBB])
        #expect(GRPCFraming.frame([]) == [0, 0, 0, 0, 0])
        let big = [UInt8](repeating: 7, count: 0x01_02_03)
        #expect(Array(GRPCFraming.frame(big).prefix(5)) == [0, 0, 1, 2, 3])
    }

    @Test("deframes exactly one message, including an empty one")
    func deframes() throws {
        let message: [UInt8] = [1, 2, 3]
        #expect(Array(try GRPCFraming.deframe(GRPCFraming.frame(message), maxMessageSize: 10)) == message)
        #expect(try GRPCFraming.deframe([0, 0, 0, 0, 0], maxMessageSize: 10).isEmpty)
        let body: [UInt8] = [9, 9] + GRPCFraming.frame(message)
        #expect(Array(try GRPCFraming.deframe(body[2...], maxMessageSize: 10)) == message)
    }

    @Test("accepts a message of exactly the maximum size")
    func maximumSize() throws {
        let message = [UInt8](repeating: 1, count: 64)
        #expect(try GRPCFraming.deframe(GRPCFraming.frame(message), maxMessageSize: 64).count == 64)
        #expect(GRPCFraming.maxBodySize(forMessageLimit: 64) == 69)
    }

    @Test("reads the body size a prefix announces once all five bytes have arrived")
    func announcedSize() {
        #expect(GRPCFraming.announcedBodySize([]) == nil)
        #expect(GRPCFraming.announcedBodySize([0, 0x80, 0, 0]) == nil)
        #expect(GRPCFraming.announcedBodySize([0, 0x80, 0, 0, 0]) == 5 + (1 << 31))
        #expect(GRPCFraming.announcedBodySize([0, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2]) == 5 + 0xFFFF_FFFF)
        #expect(GRPCFraming.announcedBodySize(GRPCFraming.frame([1, 2, 3])) == 8)
    }

    @Test("refuses a message over the maximum with RESOURCE_EXHAUSTED")
    func overLimit() {
        let framed = GRPCFraming.frame([UInt8](repeating: 1, count: 65))
        #expect(code(framed, max: 64) == .resourceExhausted)
        // The announced length decides, even before the bytes arrive.
        #expect(code([0, 0x7F, 0xFF, 0xFF, 0xFF], max: 64) == .resourceExhausted)
    }

    @Test("refuses a compressed message with UNIMPLEMENTED")
    func compressed() {
        #expect(code([1, 0, 0, 0, 1, 0x55], max: 64) == .unimplemented)
    }

    @Test("refuses empty, truncated, garbled and multi-message bodies with INTERNAL")
    func malformed() {
        #expect(code([], max: 64) == .internal)
        #expect(code([0, 0, 0], max: 64) == .internal)
        #expect(code([0, 0, 0, 0, 4, 1, 2], max: 64) == .internal)
        #expect(code([2, 0, 0, 0, 1, 1], max: 64) == .internal)
        #expect(code(GRPCFraming.frame([1]) + GRPCFraming.frame([2]), max: 64) == .internal)
        #expect(code(GRPCFraming.frame([1]) + [0], max: 64) == .internal)
    }

    @Test("names the problem in the status message")
    func messages() {
        #expect(message([0, 0, 0, 0, 4, 1, 2], max: 64).contains("Truncated"))
        #expect(message(GRPCFraming.frame([1]) + GRPCFraming.frame([2]), max: 64).contains("more than one"))
        #expect(message(GRPCFraming.frame([UInt8](repeating: 0, count: 9)), max: 8).contains("maximum of 8"))
    }

    private func code(_ body: [UInt8], max: Int) -> GRPCStatus.Code? {
        do {
            _ = try GRPCFraming.deframe(body, maxMessageSize: max)
            return nil
        } catch {
            return error.code
        }
    }

    private func message(_ body: [UInt8], max: Int) -> String {
        do {
            _ = try GRPCFraming.deframe(body, maxMessageSize: max)
            return ""
        } catch {
            return error.message
        }
    }
}
