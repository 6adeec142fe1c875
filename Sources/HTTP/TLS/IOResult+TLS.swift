import TLS

extension IOResult {
    /// A TLS outcome as the connection's I/O sees it: either direction's want is a wait for the next event.
    init(_ transfer: TLSTransfer) {
        switch transfer {
        case .bytes(let count): self = .bytes(count)
        case .wantRead, .wantWrite: self = .wouldBlock
        case .closed: self = .endOfFile
        case .failed(let error): self = .failed("TLS: " + error.message)
        }
    }
}
