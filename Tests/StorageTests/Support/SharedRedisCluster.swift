import Glibc
import Synchronization

/// One Redis Cluster (three primaries, three replicas) for the whole test process, started at first use and
/// stopped when the process exits: forming a cluster takes seconds, too long to repeat for each contract test.
/// Each store on it takes a key prefix of its own, so tests running at once never see each other's keys.
enum SharedRedisCluster {
    private static let made: Result<RedisClusterServers, any Error> = {
        let made = Result { try RedisClusterServers() }
        atexit { SharedRedisCluster.stop() }
        return made
    }()
    private static let prefixes = Atomic<Int>(0)

    static func servers() throws -> RedisClusterServers {
        try made.get()
    }

    /// A key prefix no other store of this process uses.
    static func freshPrefix() -> String {
        "t\(prefixes.add(1, ordering: .relaxed).newValue):"
    }

    private static func stop() {
        if case .success(let servers) = made { servers.stop() }
    }
}
