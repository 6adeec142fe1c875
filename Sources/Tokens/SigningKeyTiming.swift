/// When a token signing key enters the JWKS and when it starts signing, in Unix seconds. Written in the
/// configuration, so that every node of a cluster moves its keys through the same states at the same times without
/// talking to the others.
public struct SigningKeyTiming: Sendable, Hashable {
    /// From this time the key is in the JWKS and its tokens verify.
    public let publishFrom: Int64
    /// From this time the key signs (if it is of the tokens' algorithm and no later key has taken over).
    public let signFrom: Int64

    public init(publishFrom: Int64, signFrom: Int64) {
        self.publishFrom = publishFrom
        self.signFrom = signFrom
    }
}
