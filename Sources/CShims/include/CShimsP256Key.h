#ifndef C_SHIMS_P256_KEY_H
#define C_SHIMS_P256_KEY_H
// ECDSA P-256 verification for a key that verifies again and again (an attested device's): 64 multiples of the
// key's point are computed once (6 KB), so that a verification doubles 60 times instead of 255. See
// shims_p256_key.c.
#include <openssl/evp.h>
#include <stddef.h>

typedef struct cshims_p256_key cshims_p256_key;

/// The table for `key`, a P-256 public key; NULL for any other key, on a CPU without OpenSSL's x86-64 P-256
/// assembly, or when memory runs out. Costs about one verification.
cshims_p256_key *cshims_p256_key_new(EVP_PKEY *key);
void cshims_p256_key_free(cshims_p256_key *key);

/// 1 when `signature` (DER ECDSA-Sig-Value, nothing after it) verifies over `digest` (the message's hash), 0 when
/// it does not, -1 when OpenSSL failed. Safe to call from several threads at once.
int cshims_p256_key_verify(const cshims_p256_key *key, const unsigned char *digest, size_t digest_length,
                           const unsigned char *signature, size_t signature_length);
#endif
