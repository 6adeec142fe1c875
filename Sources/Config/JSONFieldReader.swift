import Foundation

/// Reads one JSON object of the configuration while remembering where it is, so every problem names its field.
/// Problems are collected rather than thrown, so one pass reports all of them.
package final class JSONFieldReader {
    package let path: String
    private let object: [String: Any]
    private let problems: ProblemList

    package final class ProblemList {
        package var items: [String] = []
    }

    package init(object: [String: Any], path: String, problems: ProblemList) {
        self.object = object
        self.path = path
        self.problems = problems
    }

    package func field(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    package func problem(_ field: String, _ text: String) { problems.items.append("\(field): \(text)") }

    /// Whether the object names `name` at all (for a field that is gone and gets a message of its own).
    package func has(_ name: String) -> Bool { object[name] != nil }

    /// Reports keys the schema does not know, which are almost always typos.
    package func rejectUnknownKeys(except known: Set<String>) {
        for key in object.keys.sorted() where !known.contains(key) { problem(field(key), "unknown field") }
    }

    package func string(_ name: String, default fallback: String? = nil) -> String? {
        guard let value = object[name] else {
            if fallback == nil { problem(field(name), "is required") }
            return fallback
        }
        guard let text = value as? String else {
            problem(field(name), "must be a string")
            return nil
        }
        return text
    }

    /// A string field naming one of `T`'s cases: `fallback` when it is absent (a problem if `required`) or names none
    /// of them ("must be a or b").
    package func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T, required: Bool = false) -> T
    where T.RawValue == String {
        guard let text = string(name, default: required ? nil : fallback.rawValue) else { return fallback }
        if let value = T(rawValue: text) { return value }
        problem(field(name), "must be " + T.allCases.map(\.rawValue).joined(separator: " or "))
        return fallback
    }

    package func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) -> Int {
        guard let value = object[name] else { return fallback }
        guard let number = value as? NSNumber, Self.kind(of: number) == .integer else {
            problem(field(name), "must be an integer")
            return fallback
        }
        guard range.contains(number.intValue) else {
            problem(field(name), "must be between \(range.lowerBound) and \(range.upperBound)")
            return fallback
        }
        return number.intValue
    }

    package func bool(_ name: String, default fallback: Bool) -> Bool {
        guard let value = object[name] else { return fallback }
        guard let number = value as? NSNumber, Self.kind(of: number) == .boolean else {
            problem(field(name), "must be true or false")
            return fallback
        }
        return number.boolValue
    }

    private enum NumberKind { case boolean, integer, floatingPoint }

    /// JSONSerialization answers every number and boolean as NSNumber; its Objective-C type code tells them apart
    /// (`c` for booleans, `d` for numbers with a fraction or exponent, integer codes otherwise).
    private static func kind(of number: NSNumber) -> NumberKind {
        switch String(cString: number.objCType) {
        case "c", "B": .boolean
        case "f", "d": .floatingPoint
        default: .integer
        }
    }

    package func object(_ name: String, required: Bool = false) -> JSONFieldReader? {
        guard let value = object[name] else {
            if required { problem(field(name), "is required") }
            return nil
        }
        guard let nested = value as? [String: Any] else {
            problem(field(name), "must be an object")
            return nil
        }
        return JSONFieldReader(object: nested, path: field(name), problems: problems)
    }

    package func objects(_ name: String, required: Bool = true) -> [JSONFieldReader] {
        guard let value = object[name] else {
            if required { problem(field(name), "is required") }
            return []
        }
        guard let items = value as? [Any] else {
            problem(field(name), "must be an array")
            return []
        }
        if required && items.isEmpty { problem(field(name), "must not be empty") }
        return items.enumerated().compactMap { index, item in
            guard let nested = item as? [String: Any] else {
                problem("\(field(name))[\(index)]", "must be an object")
                return nil
            }
            return JSONFieldReader(object: nested, path: "\(field(name))[\(index)]", problems: problems)
        }
    }

    package func strings(_ name: String, required: Bool = true) -> [String] {
        guard let value = object[name] else {
            if required { problem(field(name), "is required") }
            return []
        }
        guard let items = value as? [String], !(required && items.isEmpty) else {
            problem(field(name), required ? "must be a non-empty array of strings" : "must be an array of strings")
            return []
        }
        return items
    }

    /// An optional array of integers within `range`; nil when absent.
    package func integers(_ name: String, in range: ClosedRange<Int>) -> [Int]? {
        guard let value = object[name] else { return nil }
        guard let items = value as? [NSNumber], items.allSatisfy({ Self.kind(of: $0) == .integer }),
              items.allSatisfy({ range.contains($0.intValue) }) else {
            problem(field(name), "must be an array of integers between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return items.map(\.intValue)
    }
}

extension JSONFieldReader {
    /// One element of an array that holds strings and objects.
    package enum StringOrObject {
        case string(String)
        case object(JSONFieldReader)
    }

    /// A required, non-empty array whose elements are strings or objects; any other element is a problem, named by
    /// its index, and left out.
    package func stringsOrObjects(_ name: String) -> [StringOrObject] {
        guard let value = object[name] else {
            problem(field(name), "is required")
            return []
        }
        guard let items = value as? [Any], !items.isEmpty else {
            problem(field(name), "must be a non-empty array")
            return []
        }
        return items.enumerated().compactMap { index, item in
            let path = "\(field(name))[\(index)]"
            if let text = item as? String { return .string(text) }
            if let nested = item as? [String: Any] {
                return .object(JSONFieldReader(object: nested, path: path, problems: problems))
            }
            problem(path, "must be a string or an object")
            return nil
        }
    }
}
