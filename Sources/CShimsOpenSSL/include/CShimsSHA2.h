#ifndef C_SHIMS_SHA2_H
#define C_SHIMS_SHA2_H
// SHA-256 and SHA-384 on the hot path, through OpenSSL's SHA256_CTX functions. OpenSSL 3.0's one-shot SHA256() looks
// the algorithm up by name, allocates a context and frees it on every call (0.5 µs for 100 bytes here, against 0.1
// µs for the same hashing this way): an assertion hashes four times. The context functions are deprecated in 3.0
// but kept, and run the same assembly. Nothing here allocates; every function may be called from any thread.
#include <stddef.h>

void cshims_sha256(const void *data, size_t count, unsigned char digest[32]);
/// SHA-256 of first || second, without building the concatenation.
void cshims_sha256_pair(const void *first, size_t firstCount, const void *second, size_t secondCount,
                        unsigned char digest[32]);
void cshims_sha384(const void *data, size_t count, unsigned char digest[48]);

/// An HMAC-SHA256 key as its inner and outer hash states (RFC 2104 §4), each having absorbed one padded block.
typedef struct cshims_hmac_sha256_key cshims_hmac_sha256_key;
/// `block`: the key, zero-padded to 64 bytes (or its SHA-256, padded, when longer). NULL when out of memory.
cshims_hmac_sha256_key *cshims_hmac_sha256_key_new(const unsigned char block[64]);
void cshims_hmac_sha256_key_free(cshims_hmac_sha256_key *key);
/// The tag of `message`; `key` is only read (each call copies the two states).
void cshims_hmac_sha256(const cshims_hmac_sha256_key *key, const void *message, size_t count, unsigned char tag[32]);
#endif
