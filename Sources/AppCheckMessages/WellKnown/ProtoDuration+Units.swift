extension ProtoDuration: Comparable {
    /// A duration of whole seconds.
    public static func seconds(_ seconds: Int64) -> ProtoDuration { ProtoDuration(seconds: seconds) }

    /// A duration of milliseconds.
    public static func milliseconds(_ milliseconds: Int64) -> ProtoDuration {
        ProtoDuration(seconds: milliseconds / 1000, nanos: Int32(milliseconds % 1000) * 1_000_000)
    }

    /// Orders durations by length; both must be normalised (`nanos` with the sign of `seconds`), as the type
    /// requires.
    public static func < (lhs: ProtoDuration, rhs: ProtoDuration) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
