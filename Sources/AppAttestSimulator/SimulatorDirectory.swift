/// A directory holding a simulated App Attest CA and a simulated receipt CA, so that a simulated device's objects
/// verify across processes: `attestd-sim` creates one, attestd trusts its two root certificates.
public struct SimulatorDirectory: Sendable {
    /// The directory's path.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The App Attest root certificate (PEM) to trust.
    public var appAttestRootPath: String { SimulatorFiles.path(path, SimulatedAppleCA.FileName.root) }
    /// The receipt root certificate (PEM) to trust.
    public var receiptRootPath: String { SimulatorFiles.path(path, SimulatedReceiptCA.FileName.root) }

    /// True when every file of both hierarchies is present.
    public var isInitialized: Bool {
        (SimulatedAppleCA.FileName.all + SimulatedReceiptCA.FileName.all).allSatisfy {
            SimulatorFiles.exists(SimulatorFiles.path(path, $0))
        }
    }

    /// Creates the directory (0700) if needed and fresh hierarchies in it, unless it already holds them and
    /// `force` is false. A directory missing any file gets a whole new pair, since a half-old hierarchy would not
    /// chain.
    ///
    /// - Returns: true when new hierarchies were written.
    @discardableResult
    public func create(force: Bool = false, name: String = "Simulated") throws(SimulatorFileError) -> Bool {
        try SimulatorFiles.makeDirectory(path)
        if isInitialized && !force { return false }
        try SimulatedAppleCA(name: name).write(to: path)
        try SimulatedReceiptCA(name: name).write(to: path)
        return true
    }

    /// Both hierarchies, read back.
    public func load() throws(SimulatorFileError) -> (ca: SimulatedAppleCA, receiptCA: SimulatedReceiptCA) {
        (try SimulatedAppleCA(directory: path), try SimulatedReceiptCA(directory: path))
    }
}
