// attestd-store-bench: drives a StateStore directly, from several threads, with the calls the exchanges make, and
// reports CPU time per exchange (this process and, for Redis, the server), so the stores' cost can be compared
// without the crypto and HTTP/2 around them. A benchmark, not a test: its numbers vary with the machine's load.
import Foundation
import Glibc
import Storage

let options: StoreBenchOptions
do {
    options = try StoreBenchOptions(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("attestd-store-bench: \(error)\n\(StoreBenchOptions.usage)\n".utf8))
    exit(2)
}

do {
    let store = try options.openStore()
    let workload = StoreWorkload(store: store, threads: options.threads, keysPerThread: options.keysPerThread,
                                 wait: options.wait, hold: options.hold, receiptBytes: options.receiptBytes,
                                 workMicroseconds: options.workMicroseconds,
                                 completionWorkMicroseconds: options.completionWorkMicroseconds, maxOutstanding: options.maxOutstanding)
    // Attestations register the keys the assertions then use.
    let attestations = try workload.run(.attestation, operations: options.attestations, serverPID: options.redisPID)
    print(attestations.line(name: "attestations"))
    let assertions = try workload.run(.assertion(readFirst: options.readBeforeAdvance), operations: options.assertions,
                                      serverPID: options.redisPID)
    print(assertions.line(name: options.readBeforeAdvance ? "assertions (read + write)" : "assertions (write only)"))
    if let sqlite = store as? SQLiteStateStore { sqlite.close() }
} catch {
    FileHandle.standardError.write(Data("attestd-store-bench: \(error)\n".utf8))
    exit(1)
}
