import Basics
import FoundationEssentials

extension SimulatedKey {
    /// What a key file holds: `{"keyId","publicKey","privateKey","counter"}`, the first two (standard base64) for
    /// people and other tools, the private key as PKCS#8 PEM.
    private struct File: Codable {
        var keyId: String
        var publicKey: String
        var privateKey: String
        var counter: UInt32
    }

    /// Reads a key `write(to:)` saved, with its counter.
    public convenience init(contentsOf path: String) throws(SimulatorFileError) {
        let text = try SimulatorFiles.read(path)
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(text.utf8))
        } catch {
            throw SimulatorFileError.malformed.with(detail: "\(path): not a simulator key file (\(error))")
        }
        guard let pair = ECKeyPair.read(pem: file.privateKey), pair.curve == .p256 else {
            throw SimulatorFileError.malformed.with(detail: "\(path): privateKey is not a P-256 private key")
        }
        self.init(pair: pair, counter: file.counter)
        // A hand-edited file whose keyId no longer names its key would make every later exchange fail obscurely.
        guard file.keyId == keyIDBase64 else {
            throw SimulatorFileError.malformed.with(detail: "\(path): keyId is not the SHA-256 of the private key's point")
        }
    }

    /// Saves the key and its current counter to `path` (JSON, mode 0600), replacing the file atomically.
    public func write(to path: String) throws(SimulatorFileError) {
        let file = File(
            keyId: keyIDBase64, publicKey: Base64.standard.encode(publicKey), privateKey: pair.privateKeyPEM, counter: counter)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(file)
        } catch {
            throw SimulatorFileError.cannotWrite.with(detail: "\(path): \(error)")
        }
        try SimulatorFiles.write(String(decoding: data, as: UTF8.self) + "\n", to: path, mode: SimulatorFiles.privateMode)
    }
}
