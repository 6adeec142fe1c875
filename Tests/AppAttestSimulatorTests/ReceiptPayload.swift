import AppAttestSimulator

/// A minimal DER reader for the receipt payload `SET OF SEQUENCE {INTEGER, INTEGER, OCTET STRING}`.
enum ReceiptPayload {
    static func fields(_ der: [UInt8]) -> [SimulatedReceipt.Field]? {
        var offset = 0
        guard let (tag, set) = element(der, &offset), tag == 0x31, offset == der.count else { return nil }
        var inner = 0
        var fields: [SimulatedReceipt.Field] = []
        while inner < set.count {
            guard let (sequenceTag, sequence) = element(set, &inner), sequenceTag == 0x30 else { return nil }
            var cursor = 0
            guard let (_, type) = element(sequence, &cursor), let (_, version) = element(sequence, &cursor),
                  let (valueTag, value) = element(sequence, &cursor), valueTag == 0x04
            else { return nil }
            fields.append(.init(
                type: type.reduce(0) { $0 << 8 | Int($1) }, version: version.reduce(0) { $0 << 8 | Int($1) }, value: value))
        }
        return fields
    }

    private static func element(_ bytes: [UInt8], _ offset: inout Int) -> (UInt8, [UInt8])? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var length = Int(bytes[offset + 1])
        offset += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard offset + count <= bytes.count else { return nil }
            length = bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
            offset += count
        }
        guard offset + length <= bytes.count else { return nil }
        defer { offset += length }
        return (tag, Array(bytes[offset..<offset + length]))
    }
}
