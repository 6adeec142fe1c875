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

    @Test("a thread that is no event loop never gets an inline slot, even with the turn in hand")
    func noSlotOffLoop() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/inline-elsewhere")
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.responses[stream]?.text == "false")
            // The slot was not taken by the other thread's attempt: the loop still grants it.
            let after = client.request(path: "/inline")
            #expect(client.run { client.responses[after]!.closed })
            #expect(client.responses[after]?.text == "[true, false]")
        }
    }

    @Test("answers whose wake-up joined a batch reach the client once the batch flushes")
    func heldWakesAreDelivered() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let streams = (0..<4).map { _ in client.request(path: "/held") }
            #expect(client.run { streams.allSatisfy { client.responses[$0]!.closed } })
            #expect(streams.allSatisfy { client.responses[$0]?.text == "held" })
        }
    }
}
