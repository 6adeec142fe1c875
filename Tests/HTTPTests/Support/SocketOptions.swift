import Glibc

/// Lets the server's loops run for a moment (not a timing assertion: tests only check state afterwards).
func waitBriefly(milliseconds: UInt32 = 300) {
    usleep(milliseconds * 1000)
}
