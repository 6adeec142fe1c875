import Glibc

/// The machine's page size, for tests that look at which pages of a block are in memory.
let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

/// How many of the `pages` pages from `block` (page-aligned) are in memory (`mincore`), or -1 if it cannot tell.
func residentPages(_ block: UnsafeMutableRawPointer, pages: Int) -> Int {
    var flags = [UInt8](repeating: 0, count: pages)
    guard mincore(block, pages * pageBytes, &flags) == 0 else { return -1 }
    return flags.count { $0 & 1 != 0 }
}
