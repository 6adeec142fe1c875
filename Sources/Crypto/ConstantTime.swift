internal import COpenSSL

/// Comparisons whose time does not depend on where two secrets differ.
public enum ConstantTime {
    /// True when `a` and `b` have the same length and the same bytes; the time depends only on the length.
    public static func equals(_ a: some ContiguousBytes, _ b: some ContiguousBytes) -> Bool {
        a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                x.count == y.count && (x.count == 0 || CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0)
            }
        }
    }
}
