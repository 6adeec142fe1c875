import Glibc

#if FUZZING
// libFuzzer's entry point for programs that own `main` (SwiftPM gives every executable its own): it parses the
// libFuzzer flags in argv and calls the callback once per input until the time or run budget is spent.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// libFuzzer's own `main` (linked in, unused: SwiftPM points `main` at the target's) refers to this symbol; a debug
/// build keeps that object file, so the symbol must exist. It runs the same body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzBody(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#endif

/// The one place a fuzz target's body is kept: libFuzzer's callback is a C function pointer and cannot capture it.
/// Written once by ``FuzzDriver/run(_:)`` before any input runs, on the only thread that runs inputs.
nonisolated(unsafe) private var fuzzBody: ([UInt8]) -> Void = { _ in }

/// Runs a fuzz target's body over its inputs.
///
/// Built with `-sanitize=fuzzer -DFUZZING` (scripts/fuzz.sh), the program is a libFuzzer fuzzer taking libFuzzer's
/// flags and corpus directories. Built plainly (as `swift build` does for every target), it replays the files and
/// directories named on its command line once each, so crash inputs can be rerun under a debugger or another
/// sanitizer without libFuzzer.
public enum FuzzDriver {
    /// Runs `body` once per input (libFuzzer's, or the replayed files'), then exits with the run's status.
    public static func run(_ body: @escaping ([UInt8]) -> Void) -> Never {
        fuzzBody = body
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzBody(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        })
        #else
        var count = 0
        for path in CommandLine.arguments.dropFirst() where !path.hasPrefix("-") {
            for file in InputFiles.list(path) {
                guard let bytes = InputFiles.read(file) else {
                    InputFiles.report("cannot read \(file)\n")
                    exit(2)
                }
                body(bytes)
                count += 1
            }
        }
        InputFiles.report("replayed \(count) inputs\n")
        exit(0)
        #endif
    }
}
