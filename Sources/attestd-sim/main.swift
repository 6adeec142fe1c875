#if canImport(Glibc)
import Glibc
#endif

/// attestd-sim: a simulated App Attest device on the command line, for the development loop and end-to-end tests.
let usage = """
    usage: attestd-sim init --dir DIR [--force]
           attestd-sim attest --dir DIR --key-file FILE --app-id TEAM.bundle --environment development|production
                  --challenge B64 [--validation-category N] [--bundle-version S]
           attestd-sim assert --dir DIR --key-file FILE --app-id TEAM.bundle --client-data B64 [--counter N]
           attestd-sim flow --url http://HOST:PORT --project ID --app APP_ID --app-id TEAM.bundle
                  --environment development|production --dir DIR [--assertions N]

    init, attest and assert print one JSON object on stdout; flow prints each step for a person.
    Errors: one line on stderr, exit 2 for usage, 1 otherwise.

    """

func writeOut(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.first else {
    writeOut("attestd-sim: missing command (see attestd-sim --help)\n", to: 2)
    exit(2)
}
do throws(CommandError) {
    switch command {
    case "init": writeOut(try InitCommand.run(arguments.dropFirst()).text + "\n", to: 1)
    case "attest": writeOut(try AttestCommand.run(arguments.dropFirst()).text + "\n", to: 1)
    case "assert": writeOut(try AssertCommand.run(arguments.dropFirst()).text + "\n", to: 1)
    case "flow": try FlowCommand.run(arguments.dropFirst())
    case "-h", "--help", "help": writeOut(usage, to: 1)
    default: throw .usage("unknown command \(command)")
    }
    exit(0)
} catch {
    let hint = error.exitStatus == 2 ? " (see attestd-sim --help)" : ""
    writeOut("attestd-sim \(command): \(error.message)\(hint)\n", to: 2)
    exit(error.exitStatus)
}
