@testable import Storage

extension RedisClusterServers {
    /// Values 0, 1, … chosen so that the keys `name` gives them land one on each primary (`primaries` of them),
    /// checked against the cluster's own `CLUSTER NODES`.
    func onEveryPrimary(_ primaries: Int = 3, _ name: (Int) -> [UInt8]) throws -> [Int] {
        // redis-cli --cluster create gives each of n primaries an equal run of slots, in order.
        var chosen: [Int?] = Array(repeating: nil, count: primaries)
        var value = 0
        while chosen.contains(where: { $0 == nil }) {
            let part = RedisKeySlot.of(name(value)) * primaries / RedisKeySlot.count
            if chosen[part] == nil { chosen[part] = value }
            value += 1
        }
        let values = chosen.compactMap { $0 }
        let ports = try values.map { try primary(of: RedisKeySlot.of(name($0))).node.port }
        guard Set(ports).count == primaries else {
            throw RedisServer.NotReady(description: "keys \(values) do not land on \(primaries) primaries: \(ports)")
        }
        return values
    }
}
