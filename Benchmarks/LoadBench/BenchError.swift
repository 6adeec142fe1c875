/// A failure that stops the bench, with what to tell the person running it.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
