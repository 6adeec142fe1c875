/// The hash slot of a key in a Redis Cluster: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16384. The
/// hash tag is what lies between the first `{` and the first `}` after it, when that is not empty: keys with the
/// same tag share a slot, so a script may touch them together.
enum RedisKeySlot {
    static let count = 16_384

    static func of(_ key: [UInt8]) -> Int {
        key.withUnsafeBufferPointer { bytes in
            var start = 0
            var end = bytes.count
            if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
               let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
                start = open + 1
                end = close
            }
            return Int(crc16(UnsafeBufferPointer(rebasing: bytes[start..<end])) & 0x3FFF)
        }
    }

    /// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection, as in Redis's cluster spec.
    static func crc16(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
