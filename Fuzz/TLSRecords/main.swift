// fuzz-tls-records: attestd's TLS 1.3 record layer (`TLS13Records`) after a handshake, against a peer that holds the
// client's traffic key (`@_spi(Testing) TLSRecordsPeer`), so that the fuzzer reaches what any client that completed
// a handshake can send: every inner content type, alert, handshake message and padding, KeyUpdates with and without
// a request, as well as forged and malformed records in the clear, and writes of ours in between (some to a peer that
// does not read, so records wait half sent).
//
// Input: byte 0 picks the suite (mod 3), byte 1 the records per key of ours (1 + byte, small enough to update
// often). Then operations, each a byte `op`:
//   op % 5 == 0: a sealed record: content type, padding, 2-byte length, then that many content bytes
//   op % 5 == 1: raw bytes: 2-byte length, then the bytes
//   op % 5 == 2: the record layer reads
//   op % 5 == 3: the record layer writes 64 × (next byte) bytes, the peer draining first when op is even
//   op % 5 == 4: a well-formed KeyUpdate, requesting one when op is odd
// At the end the record layer reads what is left and shuts down.
@_spi(Testing) import HTTP
import FuzzSupport

FuzzDriver.run { bytes in
    var input = FuzzInput(bytes)
    let peer = TLSRecordsPeer(suite: Int(input.byte()), recordsPerKey: 1 + UInt64(input.byte()))
    var operations = 0
    while !input.isAtEnd && !peer.isClosed && operations < 256 {
        operations += 1
        let op = input.byte()
        switch op % 5 {
        case 0:
            let contentType = input.byte()
            let padding = Int(input.byte())
            let content = input.take(input.length16())
            peer.sendSealed(content: content, contentType: contentType, padding: padding)
        case 1:
            peer.sendRaw(input.take(min(input.length16(), 20_000)))
        case 2:
            peer.serverReads()
        case 3:
            peer.serverWrites(64 * Int(input.byte()), drain: op % 2 == 0)
        default:
            peer.sendSealed(content: [24, 0, 0, 1, op % 2], contentType: 22, padding: 0)
        }
    }
    peer.serverReads()
    peer.serverShutdown()
}
