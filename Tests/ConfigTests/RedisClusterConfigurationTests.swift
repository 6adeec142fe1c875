import Config
import Testing

@Suite("Configuration of the Redis Cluster store")
struct RedisClusterConfigurationTests {
    func parse(store: String) throws(ConfigurationError) -> Configuration {
        try RedisStoreConfigurationTests().parse(store: store)
    }

    func cluster(_ configuration: Configuration) -> Configuration.RedisCluster? {
        if case .redisCluster(let cluster) = configuration.store { return cluster }
        return nil
    }

    @Test("reads the nodes and the options, a node's port defaulting to 6379, one replica acknowledging by default")
    func reads() throws {
        let cluster = try #require(cluster(try parse(store: """
            {"kind":"redisCluster","redisCluster":{"nodes":[{"host":"10.0.0.7"},{"host":"10.0.0.8","port":7001}],
             "username":"attestd","password":"s3cret","keyPrefix":"prod:","tls":{"caFile":"tls/ca.pem"}}}
            """)))
        #expect(cluster.nodes.map(\.host) == ["10.0.0.7", "10.0.0.8"])
        #expect(cluster.nodes.map(\.port) == [6379, 7001])
        #expect(cluster.username == "attestd")
        #expect(cluster.password == "s3cret")
        #expect(cluster.keyPrefix == "prod:")
        #expect(cluster.tls?.caFilePath == "/etc/attestd/tls/ca.pem")
        #expect(cluster.replicasToAcknowledge == 1)
        #expect(cluster.replicaTimeoutMilliseconds == 200)
        #expect(cluster.commandTimeoutMilliseconds == 500)
    }

    @Test("refuses no nodes, a hash tag in the key prefix, a replica timeout not below the command timeout, and unknown fields")
    func problems() {
        do {
            _ = try parse(store: """
                {"kind":"redisCluster","redisCluster":{"nodes":[],"keyPrefix":"{app}:","commandTimeoutMs":300,
                 "replicaTimeoutMs":300,"database":1}}
                """)
            Issue.record("an invalid file was accepted")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            #expect(problems.contains("store.redisCluster.nodes: must list at least one node of the cluster"), "\(problems)")
            #expect(problems.contains("store.redisCluster.keyPrefix: must not hold { or }"), "\(problems)")
            #expect(problems.contains("store.redisCluster.replicaTimeoutMs: must be below commandTimeoutMs (300)"), "\(problems)")
            #expect(problems.contains("store.redisCluster.database: unknown field"), "\(problems)")
        }
    }

    @Test("refuses a redisCluster kind without its section")
    func missingSection() {
        #expect(throws: ConfigurationError.self) { try parse(store: #"{"kind":"redisCluster"}"#) }
    }
}
