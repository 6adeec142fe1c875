// See CShimsFixedKey.h. The verification is ECDSA's, as OpenSSL's ossl_ecdsa_simple_verify_sig does it:
// r and s in [1, n-1], e the digest's leftmost bits, w = s^-1, u1 = e·w, u2 = r·w, R = u1·G + u2·Q, valid when R is
// not the point at infinity and x(R) mod n = r. Only the multiplications differ: u1·G and u2·Q each use their
// point's table. Everything here is public data (a signature being checked), so nothing needs constant time.

// EC_GROUP_precompute_mult is deprecated in OpenSSL 3.0, with no replacement for tables of a chosen point.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CShimsFixedKey.h"
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <stdlib.h>
#include <string.h>

struct cshims_fixed_key {
    /// The curve, with tables for its generator G.
    EC_GROUP *curve;
    /// The same curve with the key's point Q as its generator, with tables for Q.
    EC_GROUP *keyCurve;
    /// A point paired with a zero scalar: EC_POINT_mul then takes its table-driven path (a lone generator
    /// multiplication would take the constant-time ladder, which ignores tables).
    EC_POINT *idlePoint;
    BIGNUM *zero;
};

void cshims_fixed_key_free(cshims_fixed_key *key) {
    if (key == NULL) return;
    EC_POINT_free(key->idlePoint);
    EC_GROUP_free(key->keyCurve);
    EC_GROUP_free(key->curve);
    BN_free(key->zero);
    free(key);
}

cshims_fixed_key *cshims_fixed_key_new(EVP_PKEY *pkey) {
    char name[64];
    size_t nameLength = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &nameLength) != 1) return NULL;
    int nid = OBJ_sn2nid(name);
    if (nid == NID_undef) nid = OBJ_txt2nid(name);
    if (nid != NID_secp384r1) return NULL;
    unsigned char point[133];
    size_t pointLength = 0;
    if (EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &pointLength) != 1) return NULL;

    cshims_fixed_key *key = calloc(1, sizeof *key);
    BN_CTX *ctx = BN_CTX_new();
    EC_POINT *q = NULL;
    if (key == NULL || ctx == NULL) goto fail;
    key->curve = EC_GROUP_new_by_curve_name(nid);
    key->keyCurve = EC_GROUP_new_by_curve_name(nid);
    key->zero = BN_new();
    if (key->curve == NULL || key->keyCurve == NULL || key->zero == NULL) goto fail;
    BN_zero(key->zero);
    q = EC_POINT_new(key->keyCurve);
    if (q == NULL || EC_POINT_oct2point(key->keyCurve, q, point, pointLength, ctx) != 1) goto fail;
    // Q generates the same group of order n as G (the curve's order is prime, cofactor 1), unless it is the point
    // at infinity, which no key is.
    if (EC_POINT_is_at_infinity(key->keyCurve, q) || EC_POINT_is_on_curve(key->keyCurve, q, ctx) != 1) goto fail;
    // Not the named curve any more: nothing may assume its generator.
    EC_GROUP_set_curve_name(key->keyCurve, NID_undef);
    if (EC_GROUP_set_generator(key->keyCurve, q, EC_GROUP_get0_order(key->curve), EC_GROUP_get0_cofactor(key->curve)) != 1) goto fail;
    if (EC_GROUP_precompute_mult(key->curve, ctx) != 1 || EC_GROUP_precompute_mult(key->keyCurve, ctx) != 1) goto fail;
    key->idlePoint = EC_POINT_dup(EC_GROUP_get0_generator(key->curve), key->curve);
    if (key->idlePoint == NULL) goto fail;
    EC_POINT_free(q);
    BN_CTX_free(ctx);
    return key;
fail:
    EC_POINT_free(q);
    BN_CTX_free(ctx);
    cshims_fixed_key_free(key);
    return NULL;
}

int cshims_fixed_key_verify(const cshims_fixed_key *key, const unsigned char *digest, size_t digest_length,
                            const unsigned char *signature, size_t signature_length) {
    // The signature must be DER with nothing after it: decoded, then encoded again to the same bytes (as OpenSSL's
    // ECDSA_verify insists).
    const unsigned char *cursor = signature;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &cursor, (long)signature_length);
    if (sig == NULL) return 0;
    int result = 0;
    unsigned char *encoded = NULL;
    int encodedLength = i2d_ECDSA_SIG(sig, &encoded);
    if (encodedLength < 0 || (size_t)encodedLength != signature_length || memcmp(encoded, signature, signature_length) != 0) {
        OPENSSL_free(encoded);
        ECDSA_SIG_free(sig);
        return 0;
    }
    OPENSSL_free(encoded);
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);

    const EC_GROUP *curve = key->curve;
    const BIGNUM *order = EC_GROUP_get0_order(curve);
    BN_CTX *ctx = BN_CTX_new();
    EC_POINT *a = EC_POINT_new(curve), *b = EC_POINT_new(key->keyCurve);
    if (ctx == NULL || a == NULL || b == NULL) { result = -1; goto done; }
    BN_CTX_start(ctx);
    BIGNUM *e = BN_CTX_get(ctx), *w = BN_CTX_get(ctx), *u1 = BN_CTX_get(ctx), *u2 = BN_CTX_get(ctx), *x = BN_CTX_get(ctx);
    if (x == NULL) { result = -1; goto end; }
    if (BN_is_zero(r) || BN_is_negative(r) || BN_ucmp(r, order) >= 0 ||
        BN_is_zero(s) || BN_is_negative(s) || BN_ucmp(s, order) >= 0) goto end;
    // e: the digest's leftmost bits, as many as the order has.
    int orderBits = BN_num_bits(order);
    size_t used = digest_length;
    if (8 * used > (size_t)orderBits) used = ((size_t)orderBits + 7) / 8;
    if (BN_bin2bn(digest, (int)used, e) == NULL) { result = -1; goto end; }
    if (8 * used > (size_t)orderBits && !BN_rshift(e, e, (int)(8 * used - (size_t)orderBits))) { result = -1; goto end; }
    if (BN_mod_inverse(w, s, order, ctx) == NULL ||
        !BN_mod_mul(u1, e, w, order, ctx) || !BN_mod_mul(u2, r, w, order, ctx)) { result = -1; goto end; }
    // u1·G and u2·Q, each from its table; then R = u1·G + u2·Q on the curve.
    if (EC_POINT_mul(curve, a, u1, key->idlePoint, key->zero, ctx) != 1 ||
        EC_POINT_mul(key->keyCurve, b, u2, key->idlePoint, key->zero, ctx) != 1 ||
        EC_POINT_add(curve, a, a, b, ctx) != 1) { result = -1; goto end; }
    if (EC_POINT_is_at_infinity(curve, a)) goto end;
    // x(R) mod n = r, checked without converting R to affine form (which costs a field inversion, a third of what
    // the tables leave): R is (X, Y, Z) with x = X/Z², so x = v exactly when X = v·Z² (mod p), for v = r and, when
    // r + n < p, v = r + n.
    BIGNUM *zz = BN_CTX_get(ctx), *candidate = BN_CTX_get(ctx), *target = BN_CTX_get(ctx);
    const BIGNUM *field = EC_GROUP_get0_field(curve);
    if (target == NULL || field == NULL ||
        EC_POINT_get_Jprojective_coordinates_GFp(curve, a, x, NULL, zz, ctx) != 1 || !BN_mod_sqr(zz, zz, field, ctx) ||
        !BN_copy(candidate, r)) { result = -1; goto end; }
    for (int attempt = 0; attempt < 2 && result == 0; attempt++) {
        if (attempt == 1 && (!BN_add(candidate, candidate, order) || BN_ucmp(candidate, field) >= 0)) break;
        if (!BN_mod_mul(target, candidate, zz, field, ctx)) { result = -1; goto end; }
        if (BN_cmp(target, x) == 0) result = 1;
    }
end:
    BN_CTX_end(ctx);
done:
    EC_POINT_free(a);
    EC_POINT_free(b);
    BN_CTX_free(ctx);
    ECDSA_SIG_free(sig);
    return result;
}
