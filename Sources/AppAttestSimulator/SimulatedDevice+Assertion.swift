import Crypto

extension SimulatedDevice {
    /// An assertion with all its parts; `assert(_:clientDataHash:extensions:options:)` returns its `object`.
    ///
    /// authenticatorData is rpIdHash ‖ flags ‖ signCount (‖ extensions), and the signature is ECDSA P-256 with
    /// SHA-256 over `nonce = SHA256(authenticatorData || clientDataHash)` taken as the message, as Apple signs it.
    public func assertion(
        _ key: SimulatedKey,
        clientDataHash: [UInt8],
        extensions: SimulatedExtensions? = nil,
        options: AssertionOptions = AssertionOptions()
    ) -> SimulatedAssertion {
        let counter = key.nextCounter(options.counter)
        var authenticatorData = options.rpIDHash ?? rpIDHash
        authenticatorData.append(options.flags)
        authenticatorData += Self.bigEndian(counter)
        if let extensions = extensions ?? self.extensions { authenticatorData += extensions.encoded }

        let nonce = SHA256.hash(authenticatorData, clientDataHash)
        let signature = (options.signingKey ?? key).pair.sign(nonce)
        if let rewrite = options.authenticatorDataAfterSigning { authenticatorData = rewrite(authenticatorData) }

        var object = CBORValue.map([
            (.text("signature"), .bytes(signature)),
            (.text("authenticatorData"), .bytes(authenticatorData)),
        ]).encoded
        object += options.trailingBytes
        return SimulatedAssertion(object: object, authenticatorData: authenticatorData, signature: signature, counter: counter)
    }
}
