/// Which primary serves each of a Redis Cluster's 16384 slots, read from `CLUSTER SLOTS`. Only primaries are kept:
/// replicas are never written to, nor read from (attestd never sends READONLY).
struct RedisSlotMap: Sendable {
    typealias Endpoint = RedisClusterConfiguration.Endpoint

    /// The index in `primaries` of each slot's primary; -1 when no primary serves the slot.
    private(set) var owners: [Int16]
    private(set) var primaries: [Endpoint]

    static let empty = RedisSlotMap(owners: Array(repeating: -1, count: RedisKeySlot.count), primaries: [])

    /// The primary of `slot`, or nil when none serves it.
    func primary(of slot: Int) -> Endpoint? {
        let owner = Int(owners[slot])
        return owner < 0 ? nil : primaries[owner]
    }

    /// The slots no primary serves.
    var unservedSlots: Int { owners.count(where: { $0 < 0 }) }

    /// Records a redirection (`MOVED slot endpoint`): the slot's primary is now `endpoint`.
    mutating func move(_ slot: Int, to endpoint: Endpoint) {
        guard (0..<RedisKeySlot.count).contains(slot) else { return }
        if let index = primaries.firstIndex(of: endpoint) {
            owners[slot] = Int16(index)
        } else {
            primaries.append(endpoint)
            owners[slot] = Int16(primaries.count - 1)
        }
    }

    /// Parses a `CLUSTER SLOTS` answer: `[[first, last, [host, port, id, …], replica…], …]`. A primary announced
    /// without a host (an empty one) is the node that answered, `asked`.
    init(clusterSlots reply: RedisReply, asked: Endpoint) throws(RedisFailure) {
        guard case .array(let ranges) = reply else { throw .server("unexpected answer to CLUSTER SLOTS: \(reply)") }
        self = .empty
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3, let first = fields[0].integer,
                  let last = fields[1].integer, case .array(let primary) = fields[2], primary.count >= 2,
                  let host = primary[0].text, let port = primary[1].integer,
                  first >= 0, last >= first, last < RedisKeySlot.count
            else { throw .server("unexpected range in CLUSTER SLOTS: \(range)") }
            let endpoint = Endpoint(host: host.isEmpty || host == "?" ? asked.host : host, port: Int(port))
            for slot in Int(first)...Int(last) { move(slot, to: endpoint) }
        }
    }

    private init(owners: [Int16], primaries: [Endpoint]) {
        self.owners = owners
        self.primaries = primaries
    }
}
