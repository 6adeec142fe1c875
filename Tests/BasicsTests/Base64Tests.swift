import Basics
import Foundation
import Testing

@Suite("Base64")
struct Base64Tests {
    /// RFC 4648 §10: the encodings of "", "f", "fo", "foo", "foob", "fooba" and "foobar".
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("encodes and decodes the test vectors of RFC 4648 §10 in every form")
    func rfc4648Vectors() {
        for (plain, padded) in Self.vectors {
            let bytes = Array(plain.utf8)
            let unpadded = padded.replacingOccurrences(of: "=", with: "")
            #expect(Base64.standard.encode(bytes) == padded)
            #expect(Base64.either.encode(bytes) == padded)
            #expect(Base64.url.encode(bytes) == unpadded)
            #expect(Base64.standard.decode(padded) == bytes)
            #expect(Base64.either.decode(padded) == bytes)
            #expect(Base64.either.decode(unpadded) == bytes)
            #expect(Base64.url.decode(unpadded) == bytes)
        }
    }

    @Test("writes 62 and 63 as + and / in the standard form and as - and _ in the URL-safe one")
    func alphabets() {
        #expect(Base64.standard.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.url.encode([UInt8]()) == "")
        #expect(Base64.url.encode([0xFB]) == "-w")
        #expect(Base64.url.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64.url.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw")
        #expect(Base64.standard.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64.url.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64.either.decode("-/8") == [0xFB, 0xFF])
    }

    @Test("round-trips every length in every form")
    func roundTrips() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 200) }
            let padded = Base64.standard.encode(bytes)
            #expect(padded.utf8.count % 4 == 0)
            #expect(Base64.standard.decode(padded) == bytes)
            #expect(Base64.either.decode(padded) == bytes)
            #expect(Base64.either.decode(padded.replacingOccurrences(of: "=", with: "")) == bytes)
            #expect(Base64.url.decode(Base64.url.encode(bytes)) == bytes)
        }
    }

    @Test("appends after what the buffer holds, as Foundation's base64 would write it")
    func appendsAfterExistingBytes() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
            let foundation = Data(bytes).base64EncodedString()
            var url = Array("header.".utf8)
            Base64.url.append(bytes, to: &url)
            let expected = foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(String(decoding: url, as: UTF8.self) == "header." + expected)
            var standard = Array("\"".utf8)
            bytes.withUnsafeBytes { Base64.standard.append($0, to: &standard) }
            #expect(String(decoding: standard, as: UTF8.self) == "\"" + foundation)
        }
    }

    @Test("the URL form (JWS) refuses padding, the standard alphabet, impossible lengths and non-zero trailing bits")
    func urlIsStrict() {
        #expect(Base64.url.decode("-w==") == nil)
        #expect(Base64.url.decode("Zg==") == nil)
        #expect(Base64.url.decode("+w") == nil)
        #expect(Base64.url.decode("/w") == nil)
        #expect(Base64.url.decode("abcde") == nil)
        #expect(Base64.url.decode("-x") == nil)
        #expect(Base64.url.decode("-w") == [0xFB])
        #expect(Base64.url.decode(utf8: Array("a.Zm9v.b".utf8)[2..<6]) == Array("foo".utf8))
    }

    @Test("the standard form (Apple, PEM, key files) requires padding and refuses the URL-safe alphabet")
    func standardRefusals() {
        for text in ["Zg", "Zm8", "Zg=", "Zg===", "-w==", "_w==", "Zm9", "Zm9v\n", " Zm9v", "Zm 9v", "Zg==Zg=="] {
            #expect(Base64.standard.decode(text) == nil, "\(text)")
        }
        #expect(Base64.standard.decode("") == [])
        // Leftover bits are ignored, as they always were for these inputs.
        #expect(Base64.standard.decode("QR==") == [0x41])
        #expect(Base64.standard.decode("QUJ=") == [0x41, 0x42])
    }

    @Test("the standard form reads what Foundation's Data(base64Encoded:) reads, where that ends in 0-2 padding")
    func standardIsFoundations() {
        // Foundation also takes a stray `=` ("Zm9v=", "ZL=q"); the standard form refuses those, and only those.
        var random = SplitMix64(state: 11)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_ \n".utf8)
        for _ in 0..<5000 {
            var text = (0..<4 * Int.random(in: 0..<4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let padding = min(text.count, Int.random(in: 0...2, using: &random))
            text.replaceSubrange((text.count - padding)..., with: repeatElement(UInt8(ascii: "="), count: padding))
            let string = String(decoding: text, as: UTF8.self)
            #expect(Base64.standard.decode(string) == Data(base64Encoded: string).map { Array($0) }, "\(string.debugDescription)")
        }
        #expect(Data(base64Encoded: "Zm9v=") != nil && Base64.standard.decode("Zm9v=") == nil)
    }

    @Test("the either form (JSON bytes, command lines) takes both alphabets, padded or not, and nothing else")
    func eitherIsStrict() {
        // The refusals a JSON `bytes` field has always answered with INVALID_ARGUMENT.
        for text in ["A", "QQ=", "Q===", "QR==", "a b", "a*bc", "QQ==QQ==", "=", "==", "====", "QQ===", "Zm9v\n"] {
            #expect(Base64.either.decode(text) == nil, "\(text)")
        }
        #expect(Base64.either.decode("QQ") == [0x41])
        #expect(Base64.either.decode("QQ==") == [0x41])
        #expect(Base64.either.decode("") == [])
    }

    @Test("decodes in the either form only when re-encoding gives the same bytes back")
    func eitherIsCanonical() {
        var random = SplitMix64(state: 3)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=".utf8)
        for _ in 0..<3000 {
            let text = String(decoding: (0..<Int.random(in: 0..<12, using: &random)).map { _ in
                alphabet.randomElement(using: &random)!
            }, as: UTF8.self)
            guard let bytes = Base64.either.decode(text) else { continue }
            let canonical = Base64.standard.encode(bytes)
            let normalized = text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }.filter { $0 != "=" }
            #expect(String(normalized) == canonical.filter { $0 != "=" }, "\(text)")
        }
    }

    @Test("decodes a substring as it decodes the same text on its own")
    func substrings() {
        let token = "eyJhIjoxfQ.Zm9v.YmFy"
        let parts = token.split(separator: ".")
        #expect(Base64.url.decode(parts[1]) == Array("foo".utf8))
        #expect(Base64.either.decode(parts[0]) == Array(#"{"a":1}"#.utf8))
    }
}

/// A small seeded generator, so that a failure names an input that can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
