import Config
import Testing

@Suite("Configuration of Apple's services and DeviceCheck keys")
struct AppleConfigurationTests {
    func parse(apple: String = "", deviceCheck: String = "") throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             \(apple.isEmpty ? "" : "\"apple\":\(apple),")
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],
                 \(deviceCheck.isEmpty ? "" : "\"deviceCheck\":\(deviceCheck),")
                 "environment":"development"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("without apple or deviceCheck objects, apps have no DeviceCheck key and Apple's hosts are the defaults")
    func defaults() throws {
        let configuration = try parse()
        #expect(configuration.apple.deviceCheckURL == nil)
        #expect(configuration.apple.riskMetricURL == nil)
        #expect(configuration.apple.caBundlePath == nil)
        #expect(configuration.projects[0].apps[0].deviceCheck == nil)
        #expect(configuration.apple.maxQueuedCalls == 256)
    }

    @Test("apple.maxQueuedCalls bounds the calls waiting for an Apple-call thread, at least one")
    func maxQueuedCalls() throws {
        #expect(try parse(apple: #"{"maxQueuedCalls":2}"#).apple.maxQueuedCalls == 2)
        do {
            _ = try parse(apple: #"{"maxQueuedCalls":0}"#)
            Issue.record("a queue of no calls was accepted")
        } catch {
            #expect(error.problems.contains("apple.maxQueuedCalls: must be between 1 and 100000"), "\(error.problems)")
        }
    }

    @Test("reads the apple object and an app's deviceCheck key, resolving paths against the file's directory")
    func reads() throws {
        let configuration = try parse(
            apple: #"{"deviceCheckURL":"https://127.0.0.1:9443","riskMetricURL":"https://127.0.0.1:9444","caBundle":"apple-ca.pem"}"#,
            deviceCheck: #"{"keyId":"ABC123DEFG","privateKey":"keys/AuthKey.p8"}"#)
        #expect(configuration.apple.deviceCheckURL == "https://127.0.0.1:9443")
        #expect(configuration.apple.riskMetricURL == "https://127.0.0.1:9444")
        #expect(configuration.apple.caBundlePath == "/etc/attestd/apple-ca.pem")
        #expect(configuration.projects[0].apps[0].deviceCheck?.keyID == "ABC123DEFG")
        #expect(configuration.projects[0].apps[0].deviceCheck?.privateKeyPath == "/etc/attestd/keys/AuthKey.p8")
    }

    @Test("names a bad key id, a missing private key, a URL that is not https and unknown fields")
    func problems() {
        do {
            _ = try parse(apple: #"{"deviceCheckURL":"ftp://apple","colour":1}"#, deviceCheck: #"{"keyId":"short"}"#)
            Issue.record("an invalid file was accepted")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            for expected in [
                "apple.deviceCheckURL: must be an https:// URL",
                "apple.colour: unknown field",
                "projects[0].apps[0].deviceCheck.keyId: must be 10 capital letters or digits (the Apple Key ID)",
                "projects[0].apps[0].deviceCheck.privateKey: is required",
            ] {
                #expect(problems.contains(expected), "missing: \(expected)\nin: \(problems)")
            }
        }
    }
}
