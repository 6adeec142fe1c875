import Glibc

/// Command-line options: `--seconds S` of measured time per rate (default 3), `--count N` precomputed inputs
/// (default 256), `--json` for one JSON object instead of the table.
struct BenchOptions {
    var seconds = 3.0
    var count = 256
    var json = false

    init(_ arguments: ArraySlice<String>) {
        var remaining = arguments
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json": json = true
            case "--seconds": seconds = remaining.popFirst().flatMap(Double.init) ?? seconds
            case "--count": count = max(8, remaining.popFirst().flatMap(Int.init) ?? count)
            default:
                print("usage: attestd-verify-bench [--seconds S] [--count N] [--json]")
                exit(2)
            }
        }
    }
}
