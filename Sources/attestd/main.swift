import AppCheckService
#if canImport(Glibc)
import Glibc
#endif

/// attestd's command line: `serve`, `check-config`, `verify`, `inspect`, `keygen`.
let usage = """
    usage: attestd serve --config FILE [--extra-trust-root PEM ...]
           attestd check-config FILE
           attestd verify attestation FILE --app-id TEAM.bundle [--app-id ...] --key-id B64
                  (--client-data-hash B64 | --challenge B64) [--environment production|development] [--at ISO8601]
           attestd verify assertion FILE --app-id TEAM.bundle --public-key PEMFILE
                  (--client-data-hash B64 | --client-data B64) --previous-counter N
           attestd inspect FILE [--json]
           attestd keygen --out DIR [--signing rs256|es256] [--force]
           attestd keygen --next-signing-key FILE [--publish-from RFC3339] [--signing rs256|es256] [--force]

    """

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandleOutput.standardError(message + "\n")
    exit(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail(usage) }
arguments.removeFirst()

switch command {
case "serve":
    var configPath: String?
    var extraRoots: [String] = []
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst() else { fail(usage) }
        switch flag {
        case "--config": configPath = value
        case "--extra-trust-root": extraRoots.append(value)
        default: fail("attestd serve: unknown option \(flag)\n" + usage)
        }
    }
    guard let configPath else { fail(usage) }
    // `_exit`, not `exit`: after a drained shutdown the verifier, Apple and store threads are idle but alive, and
    // `exit` would run OpenSSL's and libcurl's atexit cleanups under them (seen as a double free at shutdown). Every
    // answer has been sent, state is committed, and logs are written unbuffered, so there is nothing left to flush.
    _exit(ServeCommand.run(configPath: configPath, extraTrustRootPaths: extraRoots))
case "check-config":
    guard arguments.count == 1 else { fail(usage) }
    exit(ServeCommand.checkConfig(path: arguments[0]))
case "verify":
    exit(VerifyCommand.run(arguments))
case "inspect":
    exit(InspectCommand.run(arguments))
case "keygen":
    exit(KeygenCommand.run(arguments))
case "-h", "--help", "help":
    FileHandleOutput.standardOutput(usage)
    exit(0)
default:
    fail("attestd: unknown command \(command)\n" + usage)
}
