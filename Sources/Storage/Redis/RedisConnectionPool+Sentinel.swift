import TLS

extension RedisConnectionPool {
    /// Where the next connection goes: the configured server, or with Sentinel the master a sentinel names now,
    /// checked with ROLE once connected (a sentinel may still name a master it is about to replace).
    static func connect(_ configuration: RedisConfiguration, tls: TLSClientContext?, generation: Int) throws(RedisFailure) -> RedisConnection {
        guard let sentinel = configuration.sentinel else {
            return try RedisConnection(configuration, tls: tls, generation: generation)
        }
        let master = try askForMaster(sentinel, like: configuration)
        var direct = configuration
        direct.host = master.host
        direct.port = master.port
        direct.sentinel = nil
        let connection = try RedisConnection(direct, tls: tls, generation: generation)
        let role = try connection.command(["ROLE"])
        guard case .array(let items) = role, items.first?.text == "master" else {
            throw .connection("\(master.host):\(master.port), named master of \(sentinel.masterName) by Sentinel, "
                + "is not a master (yet): \(role)")
        }
        return connection
    }

    /// `SENTINEL get-master-addr-by-name`, asked of each sentinel in turn until one answers.
    private static func askForMaster(
        _ sentinel: RedisSentinelConfiguration, like configuration: RedisConfiguration
    ) throws(RedisFailure) -> RedisSentinelConfiguration.Endpoint {
        var failures: [String] = []
        for endpoint in sentinel.sentinels {
            let asked = RedisConfiguration(
                host: endpoint.host, port: endpoint.port, password: sentinel.password,
                connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                commandTimeoutMilliseconds: configuration.commandTimeoutMilliseconds)
            do throws(RedisFailure) {
                let connection = try RedisConnection(asked, tls: nil, generation: 0)
                let reply = try connection.command(["SENTINEL", "get-master-addr-by-name", sentinel.masterName])
                guard case .array(let items) = reply, items.count == 2, let host = items[0].text,
                      let port = items[1].text.flatMap({ Int($0) }) else {
                    failures.append("\(endpoint.host):\(endpoint.port) knows no master \(sentinel.masterName) (\(reply))")
                    continue
                }
                return .init(host: host, port: port)
            } catch {
                failures.append("\(endpoint.host):\(endpoint.port): \(error.storeError.description)")
            }
        }
        throw .connection("no sentinel named the master of \(sentinel.masterName): "
            + (failures.isEmpty ? "no sentinels configured" : failures.joined(separator: "; ")))
    }
}
