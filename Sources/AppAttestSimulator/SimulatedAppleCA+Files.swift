extension SimulatedAppleCA {
    /// The file names of a hierarchy saved in a directory.
    public enum FileName {
        /// The root certificate (PEM): the trust anchor to give attestd (`trust.extraAppAttestRoots`).
        public static let root = "app-attest-root.pem"
        public static let rootKey = "app-attest-root-key.pem"
        public static let intermediate = "app-attest-intermediate.pem"
        public static let intermediateKey = "app-attest-intermediate-key.pem"
        /// Every file `write(to:)` writes.
        public static let all = [root, rootKey, intermediate, intermediateKey]
    }

    /// Reads a hierarchy `write(to:)` saved in `directory`, checking that each key is its certificate's.
    public convenience init(directory: String) throws(SimulatorFileError) {
        let root = try SimulatorFiles.readCertificate(directory, FileName.root)
        let intermediate = try SimulatorFiles.readCertificate(directory, FileName.intermediate)
        self.init(
            root: root,
            rootKey: try SimulatorFiles.readKey(directory, FileName.rootKey, certifiedBy: root),
            intermediate: intermediate,
            intermediateKey: try SimulatorFiles.readKey(directory, FileName.intermediateKey, certifiedBy: intermediate))
    }

    /// Saves the root and intermediate certificates (PEM, 0644) and keys (PKCS#8 PEM, 0600) into `directory`,
    /// which must exist, replacing any files of the same names.
    public func write(to directory: String) throws(SimulatorFileError) {
        try SimulatorFiles.write(root, as: FileName.root, key: rootKey, as: FileName.rootKey, into: directory)
        try SimulatorFiles.write(
            intermediate, as: FileName.intermediate, key: intermediateKey, as: FileName.intermediateKey, into: directory)
    }
}
