import Crypto
import Foundation
import Testing

@Suite("Secure random bytes")
struct SecureRandomTests {
    @Test("small draws across many refills of the per-thread buffer never repeat")
    func smallDrawsAreDistinct() {
        // 16-byte draws: 2,000 of them span eight 4 KB refills, and a piece handed out twice would show as a repeat.
        var seen = Set<[UInt8]>()
        for _ in 0..<2_000 {
            let draw = SecureRandom.bytes(count: 16)
            #expect(seen.insert(draw).inserted)
        }
    }

    @Test("every size is filled, up to and past the buffered limit", arguments: [1, 22, 1_023, 1_024, 1_025, 4_096, 100_000])
    func sizes(count: Int) {
        let draws = (0..<8).map { _ in SecureRandom.bytes(count: count) }
        #expect(draws.allSatisfy { $0.count == count })
        // Two draws of n random bytes are equal with chance 2^-8n: one-byte draws may repeat (1 in 256 for a pair),
        // so those are only required not to be all alike (2^-56); from 8 bytes up every draw must differ.
        let distinct = Set(draws).count
        if count >= 8 { #expect(distinct == draws.count) } else { #expect(distinct > 1) }
        let first = draws[0]
        // A byte left unwritten would stay 0: among this many random bytes, far fewer than half are 0.
        if count >= 1_000 { #expect(first.filter { $0 == 0 }.count < count / 16) }
    }

    @Test("a zero-length fill is a no-op")
    func empty() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test("threads draw different bytes")
    func threadsDiffer() async {
        let draws = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 { group.addTask { SecureRandom.bytes(count: 32) } }
            return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(Set(draws).count == 8)
    }

    @Test("a child process after fork() does not repeat its parent's next bytes")
    func forkedChildDrawsItsOwn() throws {
        _ = SecureRandom.bytes(count: 16)  // this thread's buffer is now full, and the child would inherit it
        var pipe: [Int32] = [0, 0]
        try #require(Glibc.pipe(&pipe) == 0)
        let child = fork()
        try #require(child >= 0)
        if child == 0 {
            let bytes = SecureRandom.bytes(count: 32)
            _ = bytes.withUnsafeBytes { write(pipe[1], $0.baseAddress, 32) }
            _exit(0)
        }
        close(pipe[1])
        let parent = SecureRandom.bytes(count: 32)
        var fromChild = [UInt8](repeating: 0, count: 32)
        let read = fromChild.withUnsafeMutableBytes { Glibc.read(pipe[0], $0.baseAddress, 32) }
        close(pipe[0])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        #expect(read == 32)
        #expect(fromChild != parent)
    }
}
