#ifndef C_SHIMS_ES256_SIGNER_H
#define C_SHIMS_ES256_SIGNER_H
// ES256 token signatures with presigned nonces. Most of an ECDSA signature is its nonce's work, which needs no
// message: k·G and two inversions (k⁻¹ mod n, and Z⁻¹ to make k·G affine), about half of OpenSSL's 19–20 µs here.
// This signer prepares nonces eight at a time, sharing the two inversions among them (Montgomery's trick: one
// inversion and three multiplications per element), and keeps them in a small pool; a signature takes one and
// lets OpenSSL finish it (`ECDSA_do_sign_ex`: s = k⁻¹(e + r·d) in OpenSSL's constant-time code, with the key).
// A thread that finds the pool empty prepares the next eight itself, so no thread of its own is needed.
//
// Secrets are handled as OpenSSL handles them: k is drawn from the private DRBG in [1, n) and flagged
// BN_FLG_CONSTTIME; k·G is OpenSSL's constant-time fixed-base multiplication; the inversions are constant-time
// exponentiations (Fermat); the products are Montgomery multiplications. A pooled nonce is used once and wiped.
// Unlike OpenSSL's own nonces, k does not mix in the message (it is drawn before the message exists): it rests on
// the DRBG alone, as random-nonce ECDSA does.
#include <stddef.h>

typedef struct cshims_es256_signer cshims_es256_signer;

/// A signer for `pkey` (an EVP_PKEY holding a P-256 private key); NULL for any other key or when out of memory.
/// `pkey` is only read here: the signer keeps its own reference to the key.
cshims_es256_signer *cshims_es256_signer_new(void *pkey);
void cshims_es256_signer_free(cshims_es256_signer *signer);
/// Signs a 32-byte digest, writing r ‖ s (32 bytes each) to `signature`: 1, or 0 when OpenSSL failed. Safe to call
/// from many threads at once.
int cshims_es256_sign(cshims_es256_signer *signer, const unsigned char digest[32], unsigned char signature[64]);
#endif
