extension SimulatedReceiptCA {
    /// The file names of a receipt hierarchy saved in a directory.
    public enum FileName {
        /// The root certificate (PEM): the trust anchor to give attestd (`trust.extraReceiptRoots`).
        public static let root = "receipt-root.pem"
        public static let rootKey = "receipt-root-key.pem"
        public static let intermediate = "receipt-intermediate.pem"
        public static let intermediateKey = "receipt-intermediate-key.pem"
        public static let signer = "receipt-signing.pem"
        public static let signerKey = "receipt-signing-key.pem"
        /// Every file `write(to:)` writes.
        public static let all = [root, rootKey, intermediate, intermediateKey, signer, signerKey]
    }

    /// Reads a hierarchy `write(to:)` saved in `directory`, checking that each key is its certificate's.
    public convenience init(directory: String) throws(SimulatorFileError) {
        let root = try SimulatorFiles.readCertificate(directory, FileName.root)
        let intermediate = try SimulatorFiles.readCertificate(directory, FileName.intermediate)
        let signer = try SimulatorFiles.readCertificate(directory, FileName.signer)
        self.init(
            root: root,
            rootKey: try SimulatorFiles.readKey(directory, FileName.rootKey, certifiedBy: root),
            intermediate: intermediate,
            intermediateKey: try SimulatorFiles.readKey(directory, FileName.intermediateKey, certifiedBy: intermediate),
            signer: signer,
            signerKey: try SimulatorFiles.readKey(directory, FileName.signerKey, certifiedBy: signer))
    }

    /// Saves the three certificates (PEM, 0644) and their keys (PKCS#8 PEM, 0600) into `directory`, which must
    /// exist, replacing any files of the same names.
    public func write(to directory: String) throws(SimulatorFileError) {
        try SimulatorFiles.write(root, as: FileName.root, key: rootKey, as: FileName.rootKey, into: directory)
        try SimulatorFiles.write(
            intermediate, as: FileName.intermediate, key: intermediateKey, as: FileName.intermediateKey, into: directory)
        try SimulatorFiles.write(signer, as: FileName.signer, key: signerKey, as: FileName.signerKey, into: directory)
    }
}
