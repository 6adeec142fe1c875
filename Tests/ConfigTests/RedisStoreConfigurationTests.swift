import Config
import Testing

@Suite("Configuration of the Redis store")
struct RedisStoreConfigurationTests {
    /// A valid file whose `store` is the given JSON.
    func parse(store: String) throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"keys/challenge.json","artifactKey":"keys/artifact.json","tokenSigning":["keys/a.pem"]},
             "store":\(store),
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],
                 "environment":"development"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    func redis(_ configuration: Configuration) -> Configuration.Redis? {
        if case .redis(let redis) = configuration.store { return redis }
        return nil
    }

    @Test("starts one verifier thread per core with Redis as with any store, and what the file says if it says")
    func verifierThreads() throws {
        let redis = try parse(store: #"{"kind":"redis","redis":{"host":"redis.internal"}}"#)
        #expect(redis.verifier.effectiveThreads(cores: 2) == 2)
        #expect(redis.verifier.effectiveThreads(cores: 8) == 8)
        let memory = try parse(store: #"{"kind":"memory"}"#)
        #expect(memory.verifier.effectiveThreads(cores: 2) == 2)
        var chosen = redis.verifier
        chosen.threads = 3
        #expect(chosen.effectiveThreads(cores: 2) == 3)
    }

    @Test("speaks plain TCP when tls is absent")
    func plain() throws {
        let redis = try #require(redis(try parse(store: #"{"kind":"redis","redis":{"host":"redis.internal"}}"#)))
        #expect(redis.host == "redis.internal")
        #expect(redis.tls == nil)
    }

    @Test("reads the TLS options, resolving the paths against the file's directory")
    func tls() throws {
        let redis = try #require(redis(try parse(store: """
            {"kind":"redis","redis":{"host":"10.0.0.5","port":6380,"tls":{"caFile":"tls/redis-ca.pem",
             "serverName":"redis.internal","certificate":"/secrets/client.pem","privateKey":"tls/client.key"}}}
            """)))
        let tls = try #require(redis.tls)
        #expect(redis.port == 6380)
        #expect(tls.caFilePath == "/etc/attestd/tls/redis-ca.pem")
        #expect(tls.serverName == "redis.internal")
        #expect(tls.certificatePath == "/secrets/client.pem")
        #expect(tls.privateKeyPath == "/etc/attestd/tls/client.key")
    }

    @Test("an empty tls object means TLS verified against the system's trust store, for the host's name")
    func defaults() throws {
        let redis = try #require(redis(try parse(store: #"{"kind":"redis","redis":{"tls":{}}}"#)))
        let tls = try #require(redis.tls)
        #expect(tls.caFilePath == nil)
        #expect(tls.serverName == nil)
        #expect(tls.certificatePath == nil)
        #expect(tls.privateKeyPath == nil)
    }

    @Test("refuses a client certificate without its key, and unknown TLS fields")
    func problems() {
        do {
            _ = try parse(store: #"{"kind":"redis","redis":{"tls":{"certificate":"c.pem","verify":false}}}"#)
            Issue.record("an invalid file was accepted")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            #expect(problems.contains("store.redis.tls.privateKey: is required with certificate"), "\(problems)")
            #expect(problems.contains("store.redis.tls.verify: unknown field"), "\(problems)")
        }
    }

    @Test("reads the sentinels and the master's name, a sentinel's port defaulting to 26379")
    func sentinel() throws {
        let redis = try #require(redis(try parse(store: """
            {"kind":"redis","redis":{"sentinel":{"masterName":"attestd","password":"s3cret",
             "sentinels":[{"host":"10.0.0.7"},{"host":"10.0.0.8","port":26380}]}}}
            """)))
        let sentinel = try #require(redis.sentinel)
        #expect(sentinel.masterName == "attestd")
        #expect(sentinel.password == "s3cret")
        #expect(sentinel.sentinels.map(\.host) == ["10.0.0.7", "10.0.0.8"])
        #expect(sentinel.sentinels.map(\.port) == [26379, 26380])
    }

    @Test("refuses a sentinel section without sentinels, and unknown sentinel fields")
    func sentinelProblems() {
        do {
            _ = try parse(store: #"{"kind":"redis","redis":{"sentinel":{"masterName":"m","sentinels":[],"quorum":2}}}"#)
            Issue.record("an invalid file was accepted")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            #expect(problems.contains("store.redis.sentinel.sentinels: must list at least one sentinel"), "\(problems)")
            #expect(problems.contains("store.redis.sentinel.quorum: unknown field"), "\(problems)")
        }
    }
}
