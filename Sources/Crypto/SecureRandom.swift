internal import CShimsOpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (per-thread, seeded from the kernel), drawn 4 KB at a
/// time per thread (`cshims_random_bytes`: one `RAND_bytes` call cost more than the rest of issuing a challenge).
public enum SecureRandom {
    /// `count` random bytes. Traps only if the DRBG cannot be seeded, which leaves no safe way to continue.
    public static func bytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            fill(UnsafeMutableRawBufferPointer(out))
            initialized = count
        }
    }

    /// Fills `buffer` with random bytes, for callers that build a value in place.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let start = buffer.baseAddress, buffer.count > 0 else { return }
        let ok = cshims_random_bytes(start.assumingMemoryBound(to: UInt8.self), buffer.count)
        precondition(ok == 1, "OpenSSL's random generator failed")
    }
}
