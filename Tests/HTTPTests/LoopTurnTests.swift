import HTTP
import Testing

@Suite("Loop turns")
struct LoopTurnTests {
    @Test("a handler on an event loop gets one inline slot per turn, and a turn later another")
    func oneSlotPerTurn() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let first = client.request(path: "/inline")
            #expect(client.run { client.responses[first]!.closed })
            let second = client.request(path: "/inline")
            #expect(client.run { client.responses[second]!.closed })
            #expect(client.responses[first]?.text == "[true, false]")
            #expect(client.responses[second]?.text == "[true, false]")
        }
    }

    @Test("a thread that is no event loop never gets an inline slot")
    func noSlotOffLoop() {
        #expect(!LoopTurn.claimInlineSlot())
        #expect(!LoopTurn.claimInlineSlot())
    }

    @Test("answers from a thread that batches its wake-ups reach the client once it flushes")
    func heldWakesAreDelivered() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let streams = (0..<4).map { _ in client.request(path: "/held") }
            #expect(client.run { streams.allSatisfy { client.responses[$0]!.closed } })
            #expect(streams.allSatisfy { client.responses[$0]?.text == "held" })
        }
    }
}
