/// Where a token signing key stands at one moment of its schedule.
public enum SigningKeyState: String, Sendable, CaseIterable {
    /// Before its `publishFrom`: not in the JWKS, and its tokens do not verify.
    case unpublished
    /// Published and accepted, not signing yet: verifiers that cache the JWKS learn it before its first token.
    case next
    /// The key that signs new tokens.
    case current
    /// Signs no more, still published and accepted: tokens it signed may still be alive.
    case retired
    /// Gone from the JWKS and its tokens refused: every token it signed has expired.
    case withdrawn
    /// Of another algorithm than the tokens': published and accepted, never signs.
    case publishedOnly
}
