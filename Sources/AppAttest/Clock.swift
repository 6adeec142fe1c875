#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock, read only when a caller did not inject a verification time.
enum Clock {
    static func now() -> Int64 { Int64(time(nil)) }
}
