/// A value bound to a statement parameter or read from a result column.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null
}

/// One result row, read by column index while the statement is on it.
struct SQLiteRow {
    let columns: [SQLiteValue]

    func integer(_ index: Int) -> Int64? {
        if case .integer(let value) = columns[index] { return value }
        return nil
    }

    func text(_ index: Int) -> String? {
        if case .text(let value) = columns[index] { return value }
        return nil
    }

    func blob(_ index: Int) -> [UInt8]? {
        switch columns[index] {
        case .blob(let value): return value
        case .text(let value): return Array(value.utf8)
        default: return nil
        }
    }
}
