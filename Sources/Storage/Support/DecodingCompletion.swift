/// Adapts a caller's completion to a store's raw outcome (a SQLite write's, a Redis reply): the raw outcome is
/// decoded with `decode`, and a failure to store or to decode reaches the caller as its `StoreError`.
func decoding<Raw, Outcome>(
    _ completion: @escaping StoreCompletion<Outcome>, _ decode: @escaping @Sendable (Raw) throws(StoreError) -> Outcome
) -> StoreCompletion<Raw> {
    { raw, batch in completion(raw.flatMap { raw in Result { () throws(StoreError) in try decode(raw) } }, batch) }
}
