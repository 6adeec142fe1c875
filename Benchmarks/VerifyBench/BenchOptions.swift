import Glibc

/// Command-line options: `--seconds S` per measurement and round (default 1), `--rounds R` (default 3, the best
/// round counts), `--count N` precomputed inputs (default 256), `--json` for one JSON object instead of the table.
struct BenchOptions {
    var seconds = 1.0
    var rounds = 3
    var count = 256
    var json = false

    init(_ arguments: ArraySlice<String>) {
        var remaining = arguments
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json": json = true
            case "--seconds": seconds = remaining.popFirst().flatMap(Double.init) ?? seconds
            case "--rounds": rounds = max(1, remaining.popFirst().flatMap(Int.init) ?? rounds)
            case "--count": count = max(8, remaining.popFirst().flatMap(Int.init) ?? count)
            default:
                print("usage: attestd-verify-bench [--seconds S] [--rounds R] [--count N] [--json]")
                exit(2)
            }
        }
    }
}
