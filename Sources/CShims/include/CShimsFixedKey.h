#ifndef C_SHIMS_FIXED_KEY_H
#define C_SHIMS_FIXED_KEY_H
// ECDSA verification for one key that verifies many signatures (a CA's): multiples of both points the verification
// multiplies (the curve's generator and the key's point) are computed once, so that each verification is a sum of
// table entries (a fixed-base comb) instead of one general double multiplication. See shims_fixed_key.c.
#include <openssl/evp.h>
#include <stddef.h>

typedef struct cshims_fixed_key cshims_fixed_key;

/// The tables for `key`, an EC key on P-384 (the curve whose OpenSSL 3.0 arithmetic is generic); NULL for any other
/// key, or when OpenSSL fails. Takes about 30 ms and 5 MB: build it once per key, for a key that verifies many.
cshims_fixed_key *cshims_fixed_key_new(EVP_PKEY *key);
void cshims_fixed_key_free(cshims_fixed_key *key);

/// 1 when `signature` (DER ECDSA-Sig-Value, nothing after it) verifies over `digest` (the message's hash), 0 when
/// it does not, -1 when OpenSSL failed. Safe to call from several threads at once.
int cshims_fixed_key_verify(const cshims_fixed_key *key, const unsigned char *digest, size_t digest_length,
                            const unsigned char *signature, size_t signature_length);
#endif
