/// When each stretch of a connection's output was produced, so that the age of the oldest byte the peer has not
/// yet taken is known: the slow-reader check (``HTTPServerConfiguration/responseDrainTimeoutSeconds``) cuts off a
/// connection whose oldest untaken byte is older than the bound.
///
/// "Taken" means acknowledged by the peer's TCP, not merely accepted by our socket: the kernel's send buffer grows
/// to megabytes for a peer that reads nothing (Linux autotunes it up to `tcp_wmem`'s maximum, 4 MiB), so a peer
/// reading through a tiny receive window can leave everything it asked for queued there with our own buffer empty.
/// The caller reads the kernel's unacknowledged count (`SIOCOUTQ`) when it checks, about once a second.
///
/// The age of the oldest byte, not how long output has been owed: a busy client on a modest link may keep some
/// output always owed while every byte still reaches it within a second or two; only a peer that takes its bytes
/// far more slowly than the server produces them lets one grow old. Offsets count bytes since the connection
/// opened. Marks produced within ``coalesceNanoseconds`` of the previous one share its time, which bounds their
/// number (a byte may look up to that much older than it is, never younger).
struct OutputAges {
    /// Bytes appended to the connection's output so far.
    private(set) var produced: UInt64 = 0
    /// Bytes the socket has accepted so far (some perhaps still in the kernel's send buffer).
    private(set) var written: UInt64 = 0
    /// Bytes the peer had taken at the last ``oldestUntaken(unacknowledged:)``: the write-stall check's measure of
    /// progress for a peer that reads slowly, whose socket may take no new bytes for a while (TCP_NOTSENT_LOWAT).
    private(set) var taken: UInt64 = 0
    /// `(end, at)`: the bytes before offset `end` (and after the previous mark's) were produced at time `at`
    /// (``MonotonicClock``). Those before `marks[head]` are known to have been taken by the peer.
    private var marks: [(end: UInt64, at: UInt64)] = []
    private var head = 0

    static let coalesceNanoseconds: UInt64 = 250_000_000

    /// Whether some byte produced has not yet been seen taken by the peer.
    var isEmpty: Bool { head == marks.count }

    /// Output now runs to offset `total` (bytes produced since the connection opened); what is new was produced `now`.
    mutating func produced(through total: UInt64, now: UInt64) {
        guard total > produced else { return }
        produced = total
        if head < marks.count, now &- marks[marks.count - 1].at < Self.coalesceNanoseconds {
            marks[marks.count - 1].end = total
        } else {
            marks.append((total, now))
        }
    }

    /// The socket accepted `count` more bytes.
    mutating func wrote(_ count: Int) {
        written &+= UInt64(count)
    }

    /// The output beyond offset `total` was dropped unsent.
    mutating func dropped(after total: UInt64) {
        guard total < produced else { return }
        produced = total
        while marks.count > head, marks[marks.count - 1].end > total {
            if marks.count - 1 > head, marks[marks.count - 2].end >= total {
                marks.removeLast()
            } else {
                marks[marks.count - 1].end = total
                break
            }
        }
    }

    /// When the oldest byte the peer has not taken was produced, given how many of the bytes written the kernel
    /// still holds unacknowledged; nil when the peer has taken everything.
    mutating func oldestUntaken(unacknowledged: Int) -> UInt64? {
        taken = written &- min(written, UInt64(max(0, unacknowledged)))
        while head < marks.count, marks[head].end <= taken { head += 1 }
        if head == marks.count {
            // All taken: give back the memory of a long backlog, keep a small array for the next burst.
            if marks.capacity > 16 { marks = [] } else { marks.removeAll(keepingCapacity: true) }
            head = 0
            return nil
        }
        if head >= 16 {
            marks.removeFirst(head)
            head = 0
        }
        return marks[head].at
    }
}
