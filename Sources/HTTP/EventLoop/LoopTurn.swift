/// The event loop turn in which a handler was called: what it may ask about running work inline.
///
/// Handing work to another thread and its answer back costs two thread wake-ups. When the other threads are idle
/// anyway, running short work on the loop itself is cheaper and answers sooner. Once per turn at most: the
/// requests that came in the same read as the first still go to other threads, so a burst is spread over the cores
/// rather than run one after another on one loop.
public struct LoopTurn: Sendable {
    private let loop: EventLoop
    /// The loop's turn counter when the handler was called; 0 for a loop that tests drive without its thread.
    private let number: UInt64

    init(loop: EventLoop, number: UInt64) {
        self.loop = loop
        self.number = number
    }

    /// True at most once per loop turn, on the loop's thread and within this turn only: the caller may run one piece
    /// of work inline now, before the loop reads further. Elsewhere (another thread, a later turn, a loop that tests
    /// drive without its thread) always false.
    public func claimInlineSlot() -> Bool {
        number != 0 && loop.isInLoopThread && loop.claimInlineSlot(inTurn: number)
    }
}
