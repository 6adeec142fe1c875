/// A flat JSON object written in the order its members were added: what each subcommand prints on stdout.
struct JSONObject {
    enum Value {
        case string(String)
        case integer(Int64)
        case bool(Bool)
    }

    private var members: [(name: String, value: Value)] = []

    init(_ members: [(String, Value)] = []) {
        self.members = members.map { (name: $0.0, value: $0.1) }
    }

    mutating func append(_ name: String, _ value: Value) {
        members.append((name, value))
    }

    /// The compact JSON text.
    var text: String {
        "{" + members.map { Self.quoted($0.name) + ":" + Self.encoded($0.value) }.joined(separator: ",") + "}"
    }

    private static func encoded(_ value: Value) -> String {
        switch value {
        case .string(let string): quoted(string)
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
