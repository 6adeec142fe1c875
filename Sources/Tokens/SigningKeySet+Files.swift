import FoundationEssentials

extension SigningKeySet {
    /// The keys in the PEM files at `paths`, oldest first (the last one signs).
    public init(pemFiles paths: [String]) throws(SigningKeySetError) {
        var texts = [String]()
        for path in paths {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
                throw SigningKeySetError.unreadableFile.with(detail: path)
            }
            texts.append(String(decoding: data, as: UTF8.self))
        }
        do {
            try self.init(pems: texts)
        } catch {
            throw error.with(detail: "\(paths.joined(separator: ", ")): \(error.detail)")
        }
    }
}
