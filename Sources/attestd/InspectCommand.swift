import AppAttest
import Basics
import Crypto
import Observability

/// `attestd inspect FILE [--json]`: decodes an attestation, an assertion or a receipt and prints every field,
/// verifying nothing. For people (indented text) or machines (`--json`).
enum InspectCommand {
    static let usage = "usage: attestd inspect FILE [--json]   (FILE: raw CBOR/DER, base64 text, or - for stdin)"

    static func run(_ arguments: [String]) -> Int32 {
        do throws(CommandInput.UsageError) {
            let input = try CommandInput(arguments, flagNames: ["--json"])
            try input.rejectUnknown(["--json"])
            guard input.positional.count == 1 else { throw CommandInput.UsageError("expected exactly one FILE") }
            let bytes = try CommandInput.readObject(input.positional[0])
            guard let document = describe(bytes) else {
                CommandInput.printError("malformed(input): not an App Attest attestation, assertion or receipt")
                return CommandInput.Exit.invalid.rawValue
            }
            print(input.has("--json") ? document.json() : document.text())
            return CommandInput.Exit.valid.rawValue
        } catch {
            CommandInput.printError("error: \(error.message)")
            CommandInput.printError(usage)
            return CommandInput.Exit.usage.rawValue
        }
    }

    /// The fields of whichever kind of object `bytes` is.
    static func describe(_ bytes: [UInt8]) -> Node? {
        if let object = try? AttestationObject(bytes) { return attestation(object) }
        if let object = try? AssertionObject(bytes) {
            return .object([
                ("kind", .string("assertion")),
                ("signature", .string(Hex.string(object.signature))),
                ("authenticatorData", authenticatorData(object.authenticatorData)),
            ])
        }
        if let receipt = receipt(bytes) { return .object([("kind", .string("receipt"))] + receipt) }
        return nil
    }

    private static func attestation(_ object: AttestationObject) -> Node {
        var fields: [(String, Node)] = [("kind", .string("attestation")), ("fmt", .string(object.format))]
        fields.append(("x5c", .array(object.certificateChainDER.map(certificate))))
        fields.append(("authData", authenticatorData(object.authenticatorData)))
        switch object.receipt {
        case nil: fields.append(("receipt", .null))
        case let bytes? where bytes.isEmpty: fields.append(("receipt", .string("")))
        case let bytes?: fields.append(("receipt", receipt(bytes).map(Node.object) ?? .string("undecodable")))
        }
        return .object(fields)
    }

    private static func authenticatorData(_ data: AuthenticatorData) -> Node {
        var fields: [(String, Node)] = [
            ("length", .number(Int64(data.rawValue.count))),
            ("rpIdHash", .string(Hex.string(data.rpIDHash))),
            ("flags", .string("0x" + Hex.string([data.flags]) + " " + data.flagNames.joined(separator: ","))),
            ("signCount", .number(Int64(data.signCount))),
        ]
        if let credential = data.attestedCredential {
            let environment = AppAttestEnvironment(aaguid: credential.aaguid)?.rawValue ?? "unknown"
            fields += [
                ("aaguid", .string(Hex.string(credential.aaguid) + " (\(environment))")),
                ("credentialId", .string(Base64.standard.encode(credential.credentialID))),
                ("publicKey", .string(Hex.string(credential.publicKey.uncompressedPoint))),
                ("keyIdOfPublicKey", .string(Base64.standard.encode(SHA256.hash(credential.publicKey.uncompressedPoint)))),
            ]
        }
        var extensions: [(String, Node)] = []
        if let category = data.extensions.validationCategory {
            extensions.append(("apple_validation_category_01", .number(Int64(category))))
        }
        if let version = data.extensions.bundleVersion { extensions.append(("apple_bundle_version_01", .string(version))) }
        fields.append(("extensions", data.extensions.map == nil ? .null : .object(extensions)))
        return .object(fields)
    }

    private static func certificate(_ der: [UInt8]) -> Node {
        guard let fields = DERCertificate(der), let parsed = try? Certificate(derEncoded: der) else {
            return .string("undecodable certificate")
        }
        var node: [(String, Node)] = [
            ("subject", .string(parsed.subject)),
            ("issuer", .string(parsed.issuer)),
            ("serialNumber", .string(parsed.serialNumberHex)),
            ("notBefore", .string(RFC3339.format(unixSeconds: fields.notBefore))),
            ("notAfter", .string(RFC3339.format(unixSeconds: fields.notAfter))),
            ("sha256", .string(Hex.string(SHA256.hash(der)))),
            ("publicKeyCurve", .string(parsed.publicKey?.curveName ?? "unknown")),
            ("publicKey", .string(Hex.string(fields.publicKey))),
            ("extensions", .array(fields.extensions.map { .string($0.oid + ($0.critical ? " (critical)" : "")) })),
        ]
        if let nonce = fields.extensionValue(oid: "1.2.840.113635.100.8.2") {
            node.append(("nonce", .string(Hex.string(nonce.suffix(32)))))
        }
        return .object(node)
    }

    /// The receipt's payload fields and certificates, or nil when `bytes` is not a SignedData receipt.
    private static func receipt(_ bytes: [UInt8]) -> [(String, Node)]? {
        guard let signed = try? SignedData.decodeUnverified(bytes), let receipt = try? Receipt(payload: signed.content)
        else { return nil }
        func time(_ value: Int64?) -> Node { value.map { .string(RFC3339.format(unixSeconds: $0)) } ?? .null }
        return [
            ("appId", .string(receipt.appID)),
            ("attestedCertificateSha256", .string(Hex.string(SHA256.hash(receipt.attestedCertificateDER)))),
            ("clientHash", .string(Base64.standard.encode(receipt.clientHash))),
            ("token", .string(receipt.token)),
            ("type", .string(receipt.type)),
            ("environment", receipt.environment.map(Node.string) ?? .null),
            ("creationTime", time(receipt.creationTime)),
            ("riskMetric", receipt.riskMetric.map { .number(Int64($0)) } ?? .null),
            ("notBefore", time(receipt.notBefore)),
            ("expirationTime", time(receipt.expirationTime)),
            ("signer", certificate(signed.signerDER)),
            ("certificates", .array(signed.certificatesDER.map(certificate))),
        ]
    }

    /// A value to print: ordered objects, so people see fields in the order of the format.
    indirect enum Node {
        case string(String)
        case number(Int64)
        case null
        case array([Node])
        case object([(String, Node)])

        func json() -> String {
            var output = ""
            write(json: &output)
            return output
        }

        private func write(json output: inout String) {
            switch self {
            case .string(let text): JSONString.append(text, to: &output)
            case .number(let value): output += String(value)
            case .null: output += "null"
            case .array(let elements):
                output += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { output += "," }
                    element.write(json: &output)
                }
                output += "]"
            case .object(let fields):
                output += "{"
                for (index, (key, value)) in fields.enumerated() {
                    if index > 0 { output += "," }
                    JSONString.append(key, to: &output)
                    output += ":"
                    value.write(json: &output)
                }
                output += "}"
            }
        }

        func text(indent: String = "") -> String {
            guard case .object(let fields) = self else { return indent + inline }
            return fields.map { key, value in
                switch value {
                case .object: "\(indent)\(key):\n" + value.text(indent: indent + "  ")
                case .array(let elements) where elements.contains(where: { if case .object = $0 { true } else { false } }):
                    "\(indent)\(key):\n" + elements.enumerated().map { index, element in
                        "\(indent)  [\(index)]\n" + element.text(indent: indent + "    ")
                    }.joined(separator: "\n")
                default: "\(indent)\(key): \(value.inline)"
                }
            }.joined(separator: "\n")
        }

        private var inline: String {
            switch self {
            case .string(let text): text
            case .number(let value): String(value)
            case .null: "absent"
            case .array(let elements): elements.map(\.inline).joined(separator: ", ")
            case .object: json()
            }
        }
    }
}
