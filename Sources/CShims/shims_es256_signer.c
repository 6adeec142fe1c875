// See CShimsES256Signer.h for why. EC_KEY, ECDSA_do_sign_ex and the Jacobian getter are deprecated in OpenSSL 3.0
// but kept: they are the only way to hand OpenSSL a prepared (k⁻¹, r).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CShimsES256Signer.h"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdlib.h>

enum { batch = 8, pool_capacity = 64, scalar_bytes = 32 };

/// One prepared nonce: k⁻¹ mod n (secret) and r = (k·G).x mod n, big-endian.
typedef struct {
    unsigned char inverse[scalar_bytes];
    unsigned char r[scalar_bytes];
} presignature;

struct cshims_es256_signer {
    EC_KEY *key;
    const EC_GROUP *group;
    const BIGNUM *order;
    BIGNUM *prime, *prime_minus_2, *order_minus_2;
    BN_MONT_CTX *prime_mont, *order_mont;
    pthread_mutex_t lock;
    size_t count;
    presignature pool[pool_capacity];
};

static void release(cshims_es256_signer *signer) {
    OPENSSL_cleanse(signer->pool, sizeof signer->pool);
    BN_free(signer->prime);
    BN_free(signer->prime_minus_2);
    BN_free(signer->order_minus_2);
    BN_MONT_CTX_free(signer->prime_mont);
    BN_MONT_CTX_free(signer->order_mont);
    EC_KEY_free(signer->key);
    free(signer);
}

cshims_es256_signer *cshims_es256_signer_new(void *pkey) {
    EC_KEY *key = EVP_PKEY_get1_EC_KEY(pkey);
    if (key == NULL) return NULL;
    const EC_GROUP *group = EC_KEY_get0_group(key);
    cshims_es256_signer *signer = calloc(1, sizeof *signer);
    if (signer == NULL) {
        EC_KEY_free(key);
        return NULL;
    }
    signer->key = key;
    if (group == NULL || EC_GROUP_get_curve_name(group) != NID_X9_62_prime256v1 || EC_KEY_get0_private_key(key) == NULL) {
        release(signer);
        return NULL;
    }
    signer->group = group;
    signer->order = EC_GROUP_get0_order(group);
    signer->prime = BN_new();
    signer->prime_minus_2 = BN_new();
    signer->order_minus_2 = BN_new();
    signer->prime_mont = BN_MONT_CTX_new();
    signer->order_mont = BN_MONT_CTX_new();
    BN_CTX *ctx = BN_CTX_new();
    int ok = ctx != NULL && signer->prime != NULL && signer->prime_minus_2 != NULL && signer->order_minus_2 != NULL
        && signer->prime_mont != NULL && signer->order_mont != NULL
        && EC_GROUP_get_curve(group, signer->prime, NULL, NULL, ctx)
        && BN_copy(signer->prime_minus_2, signer->prime) && BN_sub_word(signer->prime_minus_2, 2)
        && BN_copy(signer->order_minus_2, signer->order) && BN_sub_word(signer->order_minus_2, 2)
        && BN_MONT_CTX_set(signer->prime_mont, signer->prime, ctx)
        && BN_MONT_CTX_set(signer->order_mont, signer->order, ctx)
        && pthread_mutex_init(&signer->lock, NULL) == 0;
    BN_CTX_free(ctx);
    if (!ok) {
        release(signer);
        return NULL;
    }
    return signer;
}

void cshims_es256_signer_free(cshims_es256_signer *signer) {
    if (signer == NULL) return;
    pthread_mutex_destroy(&signer->lock);
    release(signer);
}

/// `out` = `in`⁻¹ mod m, both in Montgomery form, in constant time: Fermat's in^(m−2).
static int invert(BIGNUM *out, const BIGNUM *in, const BIGNUM *m_minus_2, const BIGNUM *m, BN_MONT_CTX *mont,
                  BIGNUM *scratch, BN_CTX *ctx) {
    if (!BN_from_montgomery(scratch, in, mont, ctx)) return 0;
    BN_set_flags(scratch, BN_FLG_CONSTTIME);
    return BN_mod_exp_mont_consttime(out, scratch, m_minus_2, m, ctx, mont) && BN_to_montgomery(out, out, mont, ctx);
}

/// Prepares `batch` presignatures: a fresh k each, k·G, and both inversions shared by the batch (Montgomery's
/// trick over the running products of the Z coordinates mod p and of the k mod n). 1 on success.
static int presign(cshims_es256_signer *signer, presignature out[batch]) {
    unsigned char random[batch][scalar_bytes];
    BN_CTX *ctx = BN_CTX_secure_new();
    EC_POINT *point = EC_POINT_new(signer->group);
    int ok = 0;
    if (ctx == NULL || point == NULL) goto done;
    BN_CTX_start(ctx);
    BIGNUM *k[batch], *x[batch], *z[batch], *z_products[batch], *k_products[batch];
    for (int i = 0; i < batch; i++) {
        k[i] = BN_CTX_get(ctx);
        x[i] = BN_CTX_get(ctx);
        z[i] = BN_CTX_get(ctx);
        z_products[i] = BN_CTX_get(ctx);
        k_products[i] = BN_CTX_get(ctx);
    }
    BIGNUM *y = BN_CTX_get(ctx), *t = BN_CTX_get(ctx), *scratch = BN_CTX_get(ctx);
    BIGNUM *z_inverse = BN_CTX_get(ctx), *k_inverse = BN_CTX_get(ctx), *one_z = BN_CTX_get(ctx), *one_k = BN_CTX_get(ctx);
    if (one_k == NULL) goto end;  // BN_CTX_get fails from then on once it has failed
    BN_MONT_CTX *mont_p = signer->prime_mont, *mont_n = signer->order_mont;
    // One draw from the private DRBG for the whole batch (each call costs more than its bytes): 32 bytes a nonce,
    // kept when in [1, n), as BN_priv_rand_range does it; a value outside (about 2⁻³² for P-256) is drawn again.
    if (RAND_priv_bytes_ex(NULL, &random[0][0], sizeof random, 0) != 1) goto end;
    for (int i = 0; i < batch; i++) {
        if (BN_bin2bn(random[i], scalar_bytes, k[i]) == NULL) goto end;
        while (BN_is_zero(k[i]) || BN_cmp(k[i], signer->order) >= 0) {
            if (!BN_priv_rand_range_ex(k[i], signer->order, 0, ctx)) goto end;
        }
        BN_set_flags(k[i], BN_FLG_CONSTTIME);
        // From here on k and Z are only multiplied: both go to Montgomery form once.
        if (!EC_POINT_mul(signer->group, point, k[i], NULL, NULL, ctx)
            || !EC_POINT_get_Jprojective_coordinates_GFp(signer->group, point, x[i], y, z[i], ctx)
            || !BN_to_montgomery(z[i], z[i], mont_p, ctx) || !BN_to_montgomery(k[i], k[i], mont_n, ctx))
            goto end;
        if (i == 0 ? !BN_copy(z_products[0], z[0]) || !BN_copy(k_products[0], k[0])
                   : !BN_mod_mul_montgomery(z_products[i], z_products[i - 1], z[i], mont_p, ctx)
                         || !BN_mod_mul_montgomery(k_products[i], k_products[i - 1], k[i], mont_n, ctx))
            goto end;
    }
    if (!invert(z_inverse, z_products[batch - 1], signer->prime_minus_2, signer->prime, mont_p, scratch, ctx)
        || !invert(k_inverse, k_products[batch - 1], signer->order_minus_2, signer->order, mont_n, scratch, ctx))
        goto end;
    for (int i = batch - 1; i >= 0; i--) {
        // The running inverses cover elements 0...i: times the product of 0...i−1 they give element i's own,
        // and times element i they drop it for the next round.
        if (i > 0) {
            if (!BN_mod_mul_montgomery(one_z, z_inverse, z_products[i - 1], mont_p, ctx)
                || !BN_mod_mul_montgomery(z_inverse, z_inverse, z[i], mont_p, ctx)
                || !BN_mod_mul_montgomery(one_k, k_inverse, k_products[i - 1], mont_n, ctx)
                || !BN_mod_mul_montgomery(k_inverse, k_inverse, k[i], mont_n, ctx))
                goto end;
        } else if (!BN_copy(one_z, z_inverse) || !BN_copy(one_k, k_inverse)) {
            goto end;
        }
        // Jacobian coordinates: affine x = X / Z²; r = x mod n (public, as the signature will carry it). Z⁻² is in
        // Montgomery form and X is not, so their Montgomery product is x itself.
        if (!BN_mod_mul_montgomery(t, one_z, one_z, mont_p, ctx) || !BN_mod_mul_montgomery(t, t, x[i], mont_p, ctx)
            || !BN_nnmod(t, t, signer->order, ctx) || BN_is_zero(t)
            || BN_bn2binpad(t, out[i].r, scalar_bytes) != scalar_bytes
            || !BN_from_montgomery(t, one_k, mont_n, ctx)
            || BN_bn2binpad(t, out[i].inverse, scalar_bytes) != scalar_bytes)
            goto end;
    }
    ok = 1;
end:
    BN_CTX_end(ctx);
done:
    OPENSSL_cleanse(random, sizeof random);
    EC_POINT_clear_free(point);
    BN_CTX_free(ctx);  // a secure context clears its numbers as it frees them
    if (!ok) OPENSSL_cleanse(out, batch * sizeof *out);
    return ok;
}

/// A presignature from the pool, or from a new batch (whose rest then fills the pool). 1 when `out` holds one.
static int take(cshims_es256_signer *signer, presignature *out) {
    int taken = 0;
    pthread_mutex_lock(&signer->lock);
    if (signer->count > 0) {
        signer->count--;
        *out = signer->pool[signer->count];
        OPENSSL_cleanse(&signer->pool[signer->count], sizeof *out);
        taken = 1;
    }
    pthread_mutex_unlock(&signer->lock);
    if (taken) return 1;
    presignature fresh[batch];
    if (!presign(signer, fresh)) return 0;
    *out = fresh[0];
    pthread_mutex_lock(&signer->lock);
    for (int i = 1; i < batch && signer->count < pool_capacity; i++) signer->pool[signer->count++] = fresh[i];
    pthread_mutex_unlock(&signer->lock);
    OPENSSL_cleanse(fresh, sizeof fresh);
    return 1;
}

int cshims_es256_sign(cshims_es256_signer *signer, const unsigned char digest[32], unsigned char signature[64]) {
    ECDSA_SIG *sig = NULL;
    presignature prepared;
    ERR_set_mark();
    if (take(signer, &prepared)) {
        BIGNUM *inverse = BN_secure_new(), *r = BN_new();
        if (inverse != NULL && r != NULL && BN_bin2bn(prepared.inverse, scalar_bytes, inverse) != NULL
            && BN_bin2bn(prepared.r, scalar_bytes, r) != NULL) {
            BN_set_flags(inverse, BN_FLG_CONSTTIME);
            sig = ECDSA_do_sign_ex(digest, 32, inverse, r, signer->key);
        }
        BN_clear_free(inverse);
        BN_free(r);
        OPENSSL_cleanse(&prepared, sizeof prepared);
    }
    // No presignature (OpenSSL failed to prepare any), or one giving s = 0 (probability 2⁻²⁵⁶): OpenSSL's own
    // signature instead, with nothing left in the error queue from the attempt.
    ERR_pop_to_mark();
    if (sig == NULL) sig = ECDSA_do_sign(digest, 32, signer->key);
    if (sig == NULL) return 0;
    const BIGNUM *r, *s;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, signature, scalar_bytes) == scalar_bytes
        && BN_bn2binpad(s, signature + scalar_bytes, scalar_bytes) == scalar_bytes;
    ECDSA_SIG_free(sig);
    return ok;
}
