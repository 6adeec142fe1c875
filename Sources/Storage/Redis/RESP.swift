/// The few pieces of the RESP request format (an array of bulk strings) that attestd writes itself.
enum RESP {
    static let lineEnd: [UInt8] = [13, 10]

    /// Appends `*<count>\r\n`, the head of a command of `count` arguments.
    static func appendCommandHeader(count: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "*"))
        appendDecimal(count, to: &output)
        output.append(contentsOf: lineEnd)
    }

    static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        var digits = Digits()
        let count = digits.render(Int64(value))
        digits.append(count, to: &output)
    }

    /// A signed decimal rendered backwards into a fixed buffer (20 digits and a sign fit any Int64).
    struct Digits {
        private var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)

        /// Renders `value` and returns how many bytes it took.
        mutating func render(_ value: Int64) -> Int {
            var magnitude = value.magnitude
            var count = 0
            withUnsafeMutableBytes(of: &storage) { bytes in
                repeat {
                    count += 1
                    bytes[bytes.count - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                if value < 0 {
                    count += 1
                    bytes[bytes.count - count] = UInt8(ascii: "-")
                }
            }
            return count
        }

        /// Appends the `count` bytes `render` produced.
        func append(_ count: Int, to output: inout [UInt8]) {
            withUnsafeBytes(of: storage) { bytes in output.append(contentsOf: bytes[(bytes.count - count)...]) }
        }
    }
}
