import Crypto
import Testing
import Tokens

@Suite("Sealed artifacts")
struct ArtifactTests {
    let v1 = ArtifactKey(version: 1, secret: Array(repeating: 1, count: 32))!
    let v2 = ArtifactKey(version: 2, secret: Array(repeating: 2, count: 32))!
    let artifact = Artifact(
        appID: "1:123456789012:ios:0123456789abcdef", keyID: Array(0..<32), publicKey: [4] + Array(repeating: 9, count: 64),
        environment: .development, attestedAt: 1_800_000_123)!

    @Test("opens what it sealed, with every field intact")
    func roundTrip() throws {
        let keyring = try #require(ArtifactKeyring(keys: [v1]))
        let sealed = try keyring.seal(artifact)
        #expect(try keyring.open(sealed) == artifact)
        #expect(try keyring.open(sealed, appID: artifact.appID) == artifact)
        #expect(try keyring.seal(artifact) != sealed, "a fresh nonce each time")
    }

    @Test("fits in 512 bytes even with the longest app id")
    func size() throws {
        let keyring = try #require(ArtifactKeyring(keys: [v1]))
        let longest = try #require(Artifact(
            appID: String(repeating: "a", count: Artifact.maximumAppIDCount), keyID: artifact.keyID, publicKey: artifact.publicKey,
            environment: .production, attestedAt: 0))
        let sealed = try keyring.seal(longest)
        #expect(sealed.count <= ArtifactKeyring.maximumCount)
        #expect(try keyring.open(sealed) == longest)
        #expect(Artifact(appID: String(repeating: "a", count: 256), keyID: artifact.keyID, publicKey: artifact.publicKey,
                         environment: .production, attestedAt: 0) == nil)
        #expect(Artifact(appID: "a", keyID: [1], publicKey: artifact.publicKey, environment: .production, attestedAt: 0) == nil)
    }

    @Test("refuses the artifact with any one byte changed")
    func everyByteFlipped() throws {
        let keyring = try #require(ArtifactKeyring(keys: [v1]))
        let sealed = try keyring.seal(artifact)
        for index in sealed.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = sealed
                changed[index] ^= mask
                #expect(throws: ArtifactError.self, "byte \(index) ^ \(mask)") { try keyring.open(changed) }
            }
        }
        #expect(throws: ArtifactError.tampered) {
            var changed = sealed
            changed[20] ^= 1
            return try keyring.open(changed)
        }
        #expect(throws: ArtifactError.malformed) { try keyring.open(Array(sealed.prefix(20))) }
    }

    @Test("refuses an artifact whose key version was relabelled to another key we hold")
    func relabelledVersion() throws {
        let keyring = try #require(ArtifactKeyring(keys: [v1, v2]))
        var sealed = try keyring.seal(artifact)
        #expect(sealed[1] == 2)
        sealed[1] = 1
        #expect(throws: ArtifactError.tampered) { try keyring.open(sealed) }
    }

    @Test("opens artifacts of older key versions and refuses versions it does not hold")
    func rotation() throws {
        let old = try #require(ArtifactKeyring(keys: [v1]))
        let rotated = try #require(ArtifactKeyring(keys: [v1, v2]))
        let sealedByOld = try old.seal(artifact)
        #expect(try rotated.open(sealedByOld) == artifact)
        let sealedByNew = try rotated.seal(artifact)
        #expect(sealedByNew[1] == 2)
        #expect(throws: ArtifactError.unknownKeyVersion) { try old.open(sealedByNew) }
        let other = try #require(ArtifactKeyring(keys: [ArtifactKey(version: 1, secret: Array(repeating: 7, count: 32))!]))
        #expect(throws: ArtifactError.tampered) { try other.open(sealedByOld) }
    }

    @Test("refuses an artifact issued to another app")
    func wrongApp() throws {
        let keyring = try #require(ArtifactKeyring(keys: [v1]))
        #expect(throws: ArtifactError.wrongApp) { try keyring.open(try keyring.seal(artifact), appID: "1:123456789012:ios:other") }
    }

    @Test("refuses empty keyrings, duplicate versions and keys that are not 32 bytes")
    func keyringRules() {
        #expect(ArtifactKeyring(keys: []) == nil)
        #expect(ArtifactKeyring(keys: [v1, v1]) == nil)
        #expect(ArtifactKey(version: 1, secret: Array(repeating: 0, count: 16)) == nil)
    }

    @Test("reads the key file format keygen writes")
    func keyFile() throws {
        let keyring = try ArtifactKeyring(keyFileJSON: Array(Keygen.artifactKeyJSON().utf8))
        #expect(keyring.versions == [1])
        let two = "{\"keys\":[{\"version\":1,\"key\":\"\(String(repeating: "A", count: 43))=\"},{\"version\":7,\"key\":\"\(String(repeating: "B", count: 43))=\"}]}"
        #expect(try ArtifactKeyring(keyFileJSON: Array(two.utf8)).versions == [1, 7])
        #expect(throws: ArtifactKeyFileError.malformed) { try ArtifactKeyring(keyFileJSON: Array("{\"keys\":[]}".utf8)) }
        #expect(throws: ArtifactKeyFileError.invalidKey) { try ArtifactKeyring(keyFileJSON: Array("{\"keys\":[{\"version\":1,\"key\":\"AAAA\"}]}".utf8)) }
        #expect(throws: ArtifactKeyFileError.invalidKey) {
            try ArtifactKeyring(keyFileJSON: Array("{\"keys\":[{\"version\":256,\"key\":\"\(String(repeating: "A", count: 43))=\"}]}".utf8))
        }
    }
}
