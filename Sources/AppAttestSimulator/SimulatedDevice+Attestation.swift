import Basics
import Crypto

extension SimulatedDevice {
    /// An attestation for `key` with all its parts; `attest(_:clientDataHash:extensions:options:)` returns its
    /// `object`.
    public func attestation(
        _ key: SimulatedKey,
        clientDataHash: [UInt8],
        extensions: SimulatedExtensions? = nil,
        options: AttestationOptions = AttestationOptions()
    ) -> SimulatedAttestation {
        let issuedAt = options.issuedAt ?? TimeSource.system.unixSeconds()
        let authenticatorData = attestationAuthenticatorData(key, extensions: extensions ?? self.extensions, options: options)
        let nonce = SHA256.hash(authenticatorData, clientDataHash)

        let certified = options.certifiedKey ?? key
        var certificateExtensions: [IssuedCertificate.Extension] = [
            .basicConstraints(ca: false),
            .credentialKeyUsage,
            .appAttestExtendedKeyUsage,
            .appID(options.certificateAppID ?? appID),
            .operatingSystem(version: options.osVersion),
        ]
        switch options.certificateNonce {
        case .computed: certificateExtensions.append(.nonce(nonce))
        case .value(let value): certificateExtensions.append(.nonce(value))
        case .rawExtensionValue(let bytes): certificateExtensions.append(.rawNonce(bytes))
        case .omitted: break
        }
        let issuer = options.issuingCA ?? ca
        let notBefore = options.certificateNotBefore ?? issuedAt - 86_400
        let leaf = issuer.credentialCertificate(
            subjectKey: certified.pair,
            commonName: Self.hex(certified.keyID),
            extensions: certificateExtensions,
            notBefore: notBefore,
            notAfter: options.certificateNotAfter ?? notBefore + 3 * 86_400)
        var chain = [leaf.der, issuer.intermediateDER]
        if let rewrite = options.x5c { chain = rewrite(chain) }

        let receipt = receiptBytes(
            options.receipt, leafDER: leaf.der, clientDataHash: clientDataHash, createdAt: issuedAt * 1000)
        var statement: [(key: CBORValue, value: CBORValue)] = [(.text("x5c"), .array(chain.map { .bytes($0) }))]
        if let receipt { statement.append((.text("receipt"), .bytes(receipt))) }
        var object = CBORValue.map([
            (.text("fmt"), .text(options.format)),
            (.text("attStmt"), .map(statement)),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
        object += options.trailingBytes
        return SimulatedAttestation(
            object: object, authenticatorData: authenticatorData, nonce: nonce, certificateChain: chain, receipt: receipt)
    }

    /// rpIdHash ‖ flags ‖ signCount ‖ aaguid ‖ credentialIdLength ‖ credentialId ‖ COSE key ‖ extensions.
    private func attestationAuthenticatorData(
        _ key: SimulatedKey, extensions: SimulatedExtensions?, options: AttestationOptions
    ) -> [UInt8] {
        let credentialID = options.credentialID ?? key.keyID
        var data = options.rpIDHash ?? rpIDHash
        data.append(options.flags)
        data += Self.bigEndian(options.counter)
        data += options.aaguid ?? environment.aaguid
        data += [UInt8(truncatingIfNeeded: credentialID.count >> 8), UInt8(truncatingIfNeeded: credentialID.count)]
        data += credentialID
        data += options.credentialPublicKey ?? key.coseKey
        if let extensions { data += extensions.encoded }
        return data
    }

    private func receiptBytes(
        _ choice: AttestationOptions.Receipt, leafDER: [UInt8], clientDataHash: [UInt8], createdAt: Int64
    ) -> [UInt8]? {
        switch choice {
        case .omitted:
            return nil
        case .empty:
            return []
        case .bytes(let bytes):
            return bytes
        case .signed(let encoding, let edit):
            var receipt = SimulatedReceipt.attest(
                appID: appID, credentialCertificateDER: leafDER, clientDataHash: clientDataHash,
                environment: environment, createdAt: createdAt)
            edit?(&receipt)
            return receiptCA.sign(receipt, encoding: encoding)
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
