extension ProtoTimestamp: Comparable {
    /// Orders instants in time; `nanos` must lie in 0…999,999,999, as the type requires.
    public static func < (lhs: ProtoTimestamp, rhs: ProtoTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
