// fuzz-cbor: the App Attest CBOR decoder, whole items and prefixes, under its production limits and tight ones.
import AppAttest
import FuzzSupport

FuzzDriver.run { bytes in
    if let item = try? CBOR.decode(bytes) {
        // What verifiers do next with a decoded item: look keys up and read typed values.
        _ = item["fmt"]?.textValue
        _ = item[label: -2]?.bytesValue
        _ = item.intValue
    }
    _ = try? CBOR.decodePrefix(bytes[...])
    let tight = CBOR.Limits(maximumBytes: 4096, maximumDepth: 3, maximumContainerCount: 4, maximumItems: 16)
    _ = try? CBOR.decode(bytes, limits: tight)
}
