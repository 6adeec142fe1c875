extension String {
    /// The UTF-8 text of a C character buffer up to its first NUL.
    init(nulTerminated buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        self = buffer[..<end].withUnsafeBufferPointer { chars in
            chars.withMemoryRebound(to: UInt8.self) { String(decoding: $0, as: UTF8.self) }
        }
    }
}
