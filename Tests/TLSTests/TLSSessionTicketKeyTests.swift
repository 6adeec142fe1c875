import Testing
@testable import TLS

@Suite("TLS session ticket keys")
struct TLSSessionTicketKeyTests {
    static let first = TLSSessionTicketKey(id: 1, secret: [UInt8](repeating: 0x11, count: 32))!
    static let second = TLSSessionTicketKey(id: 2, secret: [UInt8](repeating: 0x22, count: 32))!

    @Test("a ticket key needs 32 bytes of secret, and its name in tickets depends on its id alone")
    func keys() {
        #expect(TLSSessionTicketKey(id: 1, secret: [UInt8](repeating: 1, count: 31)) == nil)
        let same = TLSSessionTicketKey(id: 1, secret: [UInt8](repeating: 0x33, count: 48))!
        #expect(same.name == Self.first.name)
        #expect(same.encryptionKey != Self.first.encryptionKey)
        #expect(Self.first.name != Self.second.name)
        #expect(Self.first.name.count == 16 && Self.first.encryptionKey.count == 32 && Self.first.macKey.count == 32)
    }
}
