import CNghttp2
import Glibc

@testable import HTTP
import Observability
import Testing

/// What a quiet HTTP/2 connection gives back: the pages nghttp2 wrote its last frames to, and the output buffer.
@Suite("HTTP/2 idle memory")
struct HTTP2IdleMemoryTests {
    typealias Harness = HTTP2InMemoryTests.Harness

    @Test("a connection quiet for a second gives back its frame buffer's pages and output buffer, then serves on")
    func quietConnectionTrimmed() throws {
        let harness = try Harness()
        let first = harness.client.request(path: "/first")
        #expect(harness.exchange { harness.client.responses[first]!.closed })
        #expect(harness.client.responses[first]?.text == "/first")
        let http2 = try #require(harness.connection.http2Session)
        let buffer = try #require(http2.frameBuffer)
        #expect(buffer.bytes >= NGHTTP2Memory.frameBufferMinimumBytes)
        let wholePages = buffer.bytes / pageBytes
        // SETTINGS, their ACK and the response went through the buffer's first page; the stream went into the table.
        #expect(residentPages(buffer.start, pages: wholePages) >= 1)
        let table = try #require(http2.streamTable)
        let tablePages = table.bytes / pageBytes
        #expect(tablePages >= 1)
        #expect(residentPages(table.start, pages: tablePages) >= 1)
        #expect(harness.connection.output.capacity > 0)

        let quietSince = harness.connection.lastActivity
        // Looked at twice: the first look also settles how much of the output the peer has taken.
        for _ in 0..<2 { harness.connection.checkTimeouts(now: quietSince + Connection.quietNanoseconds / 2) }
        #expect(residentPages(buffer.start, pages: wholePages) >= 1, "not quiet long enough yet")
        harness.connection.checkTimeouts(now: quietSince + Connection.quietNanoseconds)
        #expect(residentPages(buffer.start, pages: wholePages) == 0)
        #expect(residentPages(table.start, pages: tablePages) == 0, "the closed stream left the table all zeros")
        #expect(harness.connection.output.capacity == 0)
        // Counted for /metrics: the buffer's whole pages, the table's page and the output buffer's capacity.
        #expect(harness.context.idleMemoryReleasedBytes.load(ordering: .relaxed) >= 4 * pageBytes + pageBytes + 1)

        // The next frames are written over zeros; the connection works as before.
        let second = harness.client.request(path: "/second")
        #expect(harness.exchange { harness.client.responses[second]!.closed })
        #expect(harness.client.responses[second]?.text == "/second")
        #expect(harness.client.responses[second]?.status == 200)
        #expect(residentPages(buffer.start, pages: wholePages) >= 1)
    }

    @Test("nothing is given back while a stream is open or a frame is still being sent")
    func busySessionKept() throws {
        let harness = try Harness()
        let slow = harness.client.request(path: "/slow/100")
        harness.exchange(rounds: 2)
        let http2 = try #require(harness.connection.http2Session)
        #expect(!http2.hasNoStreams)
        #expect(http2.releaseIdleMemory() == 0)
        #expect(harness.exchange { harness.client.responses[slow]!.closed })
        #expect(http2.releaseIdleMemory() > 0)

        // Two PINGs in, two ACKs owed: taken out one frame at a time, the first leaves nghttp2 mid-send.
        harness.client.ping(count: 2)
        let pings = harness.client.outgoing()
        pings.withUnsafeBytes { http2.receive($0) }
        var output: [UInt8] = []
        http2.produceOutput(into: &output, limit: 1)
        #expect(output.count == 17)
        #expect(http2.releaseIdleMemory() == 0)
        http2.produceOutput(into: &output, limit: 1 << 20)
        #expect(output.count == 34)
        #expect(http2.releaseIdleMemory() > 0)
    }

    @Test("the allocator finds a session's frame buffer among what nghttp2 allocates as it creates one")
    func frameBufferFound() throws {
        let record = UnsafeMutablePointer<NGHTTP2Memory.SessionRecord>.allocate(capacity: 1)
        defer { record.deallocate() }
        record.initialize(to: NGHTTP2Memory.SessionRecord(creating: true))
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        var allocator = NGHTTP2Memory.allocator(recordingInto: record)
        var session: OpaquePointer?
        #expect(nghttp2_session_server_new3(&session, callbacks, nil, nil, &allocator) == 0)
        record.pointee.creating = false
        // nghttp2 1.x: a frame header (9 bytes), a pad-length byte and the largest default payload (16 KiB).
        #expect(record.pointee.frameBufferBytes == 9 + 1 + 16_384)
        let start = try #require(record.pointee.frameBuffer)
        #expect(Int(bitPattern: start) % pageBytes == 0)
        nghttp2_submit_settings(session, 0, nil, 0)
        var data: UnsafePointer<UInt8>?
        #expect(nghttp2_session_mem_send(session, &data) == 9)
        #expect(data.map { UnsafeRawPointer($0) } == UnsafeRawPointer(start) + 1, "written in the recorded block")
        nghttp2_session_del(session)
        #expect(record.pointee.frameBuffer == nil, "forgotten when freed")
    }

    @Test("only the pages of the stream table that read all zeros are given back, and what the others hold stays")
    func zeroPagesOnly() throws {
        let record = UnsafeMutablePointer<NGHTTP2Memory.SessionRecord>.allocate(capacity: 1)
        defer { record.deallocate() }
        record.initialize(to: NGHTTP2Memory.SessionRecord())
        let allocator = NGHTTP2Memory.allocator(recordingInto: record)
        let first = try #require(allocator.calloc!(2, pageBytes, UnsafeMutableRawPointer(record)))
        let table = try #require(allocator.calloc!(3, pageBytes, UnsafeMutableRawPointer(record)))
        #expect(record.pointee.zeroedBlock == table, "the latest zeroed block: a table that grows is allocated anew first")
        allocator.free!(first, UnsafeMutableRawPointer(record))
        #expect(record.pointee.zeroedBlock == table)
        #expect(NGHTTP2Memory.releaseZeroPages(of: record) == 0, "no page of it is in memory yet")
        // Page 0 holds a byte, page 1 was written and cleared again, page 2 was never touched.
        table.storeBytes(of: 9, toByteOffset: 100, as: UInt8.self)
        memset(table + pageBytes, 7, pageBytes)
        memset(table + pageBytes, 0, pageBytes)
        #expect(residentPages(table, pages: 3) == 2)
        #expect(NGHTTP2Memory.releaseZeroPages(of: record) == pageBytes)
        #expect(residentPages(table, pages: 3) == 1)
        #expect(table.load(fromByteOffset: 100, as: UInt8.self) == 9)
        allocator.free!(table, UnsafeMutableRawPointer(record))
        #expect(record.pointee.zeroedBlock == nil, "forgotten when freed")
    }
}
