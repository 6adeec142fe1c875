/// attestd entry point.
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "verify": exit(VerifyCommand.run(Array(arguments.dropFirst())))
case "inspect": exit(InspectCommand.run(Array(arguments.dropFirst())))
default: print("attestd")
}
