/// The app an RPC names, read without decoding its message, so that a rate limit costs less than the work it
/// saves. Every app-scoped request of the token exchange service carries the app's resource name
/// (`projects/{project}/apps/{app}`) as field 1; REST puts it in the path, before the `:method` suffix.
enum AppNamePeek {
    /// The app id in field 1 of a protobuf message, if the message has that field as a length-delimited value.
    static func appID(protobuf message: ArraySlice<UInt8>) -> Substring? {
        var index = message.startIndex
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < message.endIndex, shift < 64 {
                let byte = message[index]
                index += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while index < message.endIndex {
            guard let tag = varint() else { return nil }
            let skip: UInt64
            switch tag & 7 {
            case 0:
                guard varint() != nil else { return nil }
                continue
            case 1: skip = 8
            case 2:
                guard let length = varint(), length <= UInt64(message.endIndex - index) else { return nil }
                if tag >> 3 == 1 {
                    let name = String(decoding: message[index..<index + Int(length)], as: UTF8.self)
                    return appID(resourceName: name[...])
                }
                skip = length
            case 5: skip = 4
            default: return nil
            }
            guard skip <= UInt64(message.endIndex - index) else { return nil }
            index += Int(skip)
        }
        return nil
    }

    /// The app id in a REST path such as `/v1/projects/p/apps/1:123:ios:abc:exchangeAppAttestAssertion`.
    static func appID(restPath path: String) -> Substring? {
        let target = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let app = appID(resourceName: target), let colon = app.lastIndex(of: ":") else { return nil }
        return app[..<colon]
    }

    /// What follows the last `apps/` of a resource name, or nil if there is none.
    static func appID(resourceName name: Substring) -> Substring? {
        guard let range = name.ranges(of: "apps/").last, range.upperBound < name.endIndex else { return nil }
        return name[range.upperBound...]
    }
}
