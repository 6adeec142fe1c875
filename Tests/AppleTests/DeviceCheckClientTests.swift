import Apple
import AppleStandIn
import Crypto
import Testing

@Suite("DeviceCheck client against the Apple stand-in over TLS")
struct DeviceCheckClientTests {
    @Test("validates a device token Apple recognises")
    func validatesToken() throws {
        let fixture = try StandInFixture()
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        try fixture.client().validate(deviceToken: token, deadline: StandInFixture.deadline())
        #expect(fixture.standIn.requestCount == 1)
    }

    @Test("sequential calls reuse one pooled connection")
    func reusesConnection() throws {
        let fixture = try StandInFixture()
        let client = fixture.client()
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        for _ in 0..<5 { try client.validate(deviceToken: token, deadline: StandInFixture.deadline()) }
        #expect(fixture.standIn.requestCount == 5)
        #expect(fixture.standIn.openConnections == 1)
    }

    @Test("an expired device token is the client's fault: deviceTokenRejected")
    func expiredToken() throws {
        let fixture = try StandInFixture()
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1", isExpired: true).base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client().validate(deviceToken: token, deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .deviceTokenRejected)
        #expect(error?.status == 400)
    }

    @Test("a production device token sent to the development host is refused as a bad device token")
    func wrongEnvironment() throws {
        let fixture = try StandInFixture(environment: .development)
        let token = StandInDeviceToken(environment: .production, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client().validate(deviceToken: token, deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .deviceTokenRejected)
    }

    @Test("a developer JWT signed by a key Apple does not know is authorizationRejected (401)")
    func badDeveloperKey() throws {
        let fixture = try StandInFixture()
        let stranger = try PrivateKey.generate(.es256)
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client(key: stranger).validate(deviceToken: token, deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .authorizationRejected)
        #expect(error?.status == 401)
    }

    @Test("a developer JWT naming an unknown key id is authorizationRejected")
    func unknownKeyID() throws {
        let fixture = try StandInFixture()
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client(keyID: "NOTAKEY000").validate(deviceToken: token, deadline: StandInFixture.deadline())
        }
        #expect(error?.code == .authorizationRejected)
    }

    @Test("two bits never set read as nil, then as set, then as reset")
    func twoBitsLifecycle() throws {
        let fixture = try StandInFixture()
        let client = fixture.client()
        let token = StandInDeviceToken(environment: .development, deviceID: "gift-device").base64
        #expect(try client.queryTwoBits(deviceToken: token, deadline: StandInFixture.deadline()) == nil)

        try client.updateTwoBits(deviceToken: token, bit0: true, bit1: nil, deadline: StandInFixture.deadline())
        let set = try #require(try client.queryTwoBits(deviceToken: token, deadline: StandInFixture.deadline()))
        #expect(set.bit0 == true)
        #expect(set.bit1 == false)
        #expect(set.lastUpdateTime.count == 7)
        #expect(set.lastUpdateTime.dropFirst(4).first == "-")

        try client.updateTwoBits(deviceToken: token, bit0: false, bit1: true, deadline: StandInFixture.deadline())
        let reset = try #require(try client.queryTwoBits(deviceToken: token, deadline: StandInFixture.deadline()))
        #expect(reset.bit0 == false)
        #expect(reset.bit1 == true)
    }

    @Test("bits belong to one device: another device still reads never set")
    func bitsPerDevice() throws {
        let fixture = try StandInFixture()
        let client = fixture.client()
        let first = StandInDeviceToken(environment: .development, deviceID: "one").base64
        let second = StandInDeviceToken(environment: .development, deviceID: "two").base64
        try client.updateTwoBits(deviceToken: first, bit0: true, bit1: true, deadline: StandInFixture.deadline())
        #expect(try client.queryTwoBits(deviceToken: second, deadline: StandInFixture.deadline()) == nil)
    }

    @Test("Apple answering 429 once is retried and the second answer is used")
    func retriesTooManyRequests() throws {
        let fixture = try StandInFixture()
        fixture.standIn.faults.fail(status: 429, count: 1)
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        try fixture.client().validate(deviceToken: token, deadline: StandInFixture.deadline())
        #expect(fixture.standIn.requestCount == 2)
    }

    @Test("Apple answering 503 until the deadline gives unavailable, after more than one attempt")
    func unavailableUntilDeadline() throws {
        let fixture = try StandInFixture()
        fixture.standIn.faults.fail(status: 503, count: nil)
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client().validate(deviceToken: token, deadline: StandInFixture.deadline(seconds: 2))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.status == 503)
        #expect(fixture.standIn.requestCount > 1)
    }

    @Test("an Apple that hangs is given up at the caller's deadline after one attempt: deadlineExceeded")
    func hangsPastDeadline() throws {
        let fixture = try StandInFixture()
        fixture.standIn.faults.delay(milliseconds: 5_000, count: nil)
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let started = ContinuousClock.now
        let error = #expect(throws: AppleError.self) {
            try fixture.client().validate(deviceToken: token, deadline: started + .milliseconds(500))
        }
        let elapsed = started.duration(to: .now)
        #expect(error?.code == .deadlineExceeded)
        #expect(elapsed >= .milliseconds(500) && elapsed < .milliseconds(1_500), "gave up after \(elapsed)")
        #expect(fixture.standIn.requestCount == 1)
    }

    @Test("a deadline already passed asks Apple nothing: deadlineExceeded")
    func deadlineAlreadyPassed() throws {
        let fixture = try StandInFixture()
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try fixture.client().validate(deviceToken: token, deadline: .now - .seconds(1))
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(fixture.standIn.requestCount == 0)
    }

    @Test("a host that refuses connections is unavailable, not a device-token failure")
    func connectionRefused() throws {
        let fixture = try StandInFixture()
        let port = fixture.standIn.port
        fixture.standIn.stop()
        let client = DeviceCheckClient(
            baseURL: "https://127.0.0.1:\(port)",
            credentials: DeveloperCredentials(teamID: StandInFixture.teamID, keyID: StandInFixture.keyID, privateKey: fixture.developerKey),
            options: AppleTransportOptions(caBundlePath: fixture.certificatePath))
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try client.validate(deviceToken: token, deadline: StandInFixture.deadline(seconds: 2))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.status == nil)
    }

    @Test("a server certificate outside the configured CA bundle is refused")
    func untrustedCertificate() throws {
        let fixture = try StandInFixture()
        let other = try StandInFixture()
        let client = DeviceCheckClient(
            baseURL: fixture.baseURL,
            credentials: DeveloperCredentials(teamID: StandInFixture.teamID, keyID: StandInFixture.keyID, privateKey: fixture.developerKey),
            options: AppleTransportOptions(caBundlePath: other.certificatePath))
        let token = StandInDeviceToken(environment: .development, deviceID: "device-1").base64
        let error = #expect(throws: AppleError.self) {
            try client.validate(deviceToken: token, deadline: StandInFixture.deadline(seconds: 2))
        }
        #expect(error?.code == .unavailable)
        // Not retried: the message is the first attempt's, not "gave up" after several.
        #expect(error?.message.hasPrefix("cannot reach") == true)
        #expect(fixture.standIn.requestCount == 0)
    }
}
