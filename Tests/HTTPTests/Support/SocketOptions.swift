import Glibc

/// Sets SO_RCVBUF on a client socket.
func setsockoptInt(_ fd: Int32, _ value: inout Int32) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
}

/// Lets the server's loops run for a moment (not a timing assertion: tests only check state afterwards).
func waitBriefly(milliseconds: UInt32 = 300) {
    usleep(milliseconds * 1000)
}
