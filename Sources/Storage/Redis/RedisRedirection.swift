/// A Redis Cluster's answer that a command did not run where it was sent, and where to send it instead.
enum RedisRedirection: Equatable {
    /// `MOVED slot host:port`: the slot has a new primary for good; the slot map is stale.
    case moved(slot: Int, to: RedisClusterConfiguration.Endpoint)
    /// `ASK slot host:port`: the slot is migrating and this key is (or will be) at the target, asked with ASKING first.
    case ask(slot: Int, to: RedisClusterConfiguration.Endpoint)
    /// `TRYAGAIN`: a multi-key command during a migration; sent again after a pause.
    case tryAgain

    /// The redirection `reply` says, or nil for any other reply.
    init?(_ reply: RedisReply) {
        guard case .error(let message) = reply else { return nil }
        if message.hasPrefix("TRYAGAIN") {
            self = .tryAgain
            return
        }
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), let colon = parts[2].lastIndex(of: ":"),
              let port = Int(parts[2][parts[2].index(after: colon)...]) else { return nil }
        let endpoint = RedisClusterConfiguration.Endpoint(host: String(parts[2][..<colon]), port: port)
        switch parts[0] {
        case "MOVED": self = .moved(slot: slot, to: endpoint)
        case "ASK": self = .ask(slot: slot, to: endpoint)
        default: return nil
        }
    }
}
