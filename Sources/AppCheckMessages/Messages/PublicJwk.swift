import GRPC

/// `google.firebase.appcheck.v1.PublicJwk`: A public JSON Web Key (RFC 7517 §4): RSA keys fill `n` and `e`, EC keys
/// `crv`, `x` and `y`.
public struct PublicJwk: ProtoMessage, Hashable {
    /// Key type: `RSA` or `EC`.
    public var kty: String
    /// `sig`.
    public var use: String
    /// `RS256` or `ES256`.
    public var alg: String
    /// The key id tokens name in their header.
    public var kid: String
    /// RSA modulus, base64url.
    public var n: String
    /// RSA exponent, base64url.
    public var e: String
    /// EC curve (`P-256`).
    public var crv: String
    /// EC x coordinate, base64url.
    public var x: String
    /// EC y coordinate, base64url.
    public var y: String

    public init(
        kty: String = "",
        use: String = "",
        alg: String = "",
        kid: String = "",
        n: String = "",
        e: String = "",
        crv: String = "",
        x: String = "",
        y: String = ""
    ) {
        self.kty = kty
        self.use = use
        self.alg = alg
        self.kid = kid
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }
}

extension PublicJwk: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.PublicJwk")

    init(reading message: MessageReader) throws(GRPCStatus) {
        kty = try message.string(1)
        use = try message.string(2)
        alg = try message.string(3)
        kid = try message.string(4)
        n = try message.string(5)
        e = try message.string(6)
        crv = try message.string(7)
        x = try message.string(8)
        y = try message.string(9)
    }

    func write(to message: MessageWriter) {
        message.string(1, kty)
        message.string(2, use)
        message.string(3, alg)
        message.string(4, kid)
        message.string(5, n)
        message.string(6, e)
        message.string(7, crv)
        message.string(8, x)
        message.string(9, y)
    }
}
