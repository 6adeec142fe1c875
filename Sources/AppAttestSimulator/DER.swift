/// The few DER encodings the simulator writes itself: certificate extension values and the receipt payload.
/// Everything else (certificates, CMS) is encoded by OpenSSL.
enum DER {
    static func tlv(_ tag: [UInt8], _ content: [UInt8]) -> [UInt8] {
        tag + length(content.count) + content
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func sequence(_ items: [UInt8]...) -> [UInt8] { tlv([0x30], items.flatMap { $0 }) }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv([0x04], bytes) }

    static func boolean(_ value: Bool) -> [UInt8] { [0x01, 0x01, value ? 0xFF : 0x00] }

    /// A non-negative INTEGER in its minimal two's-complement form.
    static func integer(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var remaining = value
        repeat {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        } while remaining > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv([0x02], bytes)
    }

    /// A context-specific, constructed, explicitly tagged value, including Apple's high tag numbers (`[1204]` is
    /// `BF 89 34`).
    static func explicitContext(_ number: UInt32, _ content: [UInt8]) -> [UInt8] {
        tlv(contextTag(number, constructed: true), content)
    }

    static func contextTag(_ number: UInt32, constructed: Bool) -> [UInt8] {
        let first: UInt8 = 0x80 | (constructed ? 0x20 : 0)
        if number < 31 { return [first | UInt8(number)] }
        var groups: [UInt8] = []
        var remaining = number
        repeat {
            groups.insert(UInt8(remaining & 0x7F), at: 0)
            remaining >>= 7
        } while remaining > 0
        for index in groups.indices.dropLast() { groups[index] |= 0x80 }
        return [first | 0x1F] + groups
    }

    /// A DER SET OF: the encoded elements sorted as X.690 §11.6 requires.
    static func setOf(_ elements: [[UInt8]]) -> [UInt8] {
        tlv([0x31], elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }
}
