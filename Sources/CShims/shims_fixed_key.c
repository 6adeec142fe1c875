// See CShimsFixedKey.h. The verification is ECDSA's, as OpenSSL's ossl_ecdsa_simple_verify_sig does it:
// r and s in [1, n-1], e the digest's leftmost bits, w = s^-1, u1 = e·w, u2 = r·w, R = u1·G + u2·Q, valid when R is
// not the point at infinity and x(R) mod n = r. Only the multiplication differs. Everything here is public data (a
// signature being checked), so nothing needs constant time.
//
// The multiplication is a fixed-base comb: a 384-bit scalar is 48 bytes, and byte i of it, recoded as a signed
// digit d in [-127, 128] (a byte above 128 becomes d - 256 and carries 1 into the next), selects d · 256^i · P from a
// table made once per point, affine so that each addition is a mixed one. u1·G + u2·Q is then about 98 point
// additions into one accumulator, with no doubling and no field inversion; OpenSSL's general double
// multiplication does about 384 doublings, and its own generator tables (EC_GROUP_precompute_mult) still cost three
// inversions per verification once both points have them.

// EC_POINTs_make_affine and EC_POINT_get_Jprojective_coordinates_GFp are deprecated in OpenSSL 3.0, with no
// replacement for a table of a chosen point's multiples.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CShimsFixedKey.h"
#include <gmp.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <stdlib.h>
#include <string.h>

/// Bytes in a scalar (P-384's order is 384 bits), plus one block for the last carry.
enum { scalarBytes = 48, blocks = scalarBytes + 1, perBlock = 128 };

struct cshims_fixed_key {
    EC_GROUP *curve;
    /// blocks × perBlock affine points: entry [i·perBlock + j - 1] is j · 256^i · G (resp. Q).
    EC_POINT **generatorTable;
    EC_POINT **keyTable;
};

static void free_table(EC_POINT **table) {
    if (table == NULL) return;
    for (size_t index = 0; index < (size_t)blocks * perBlock; index++) EC_POINT_free(table[index]);
    free(table);
}

void cshims_fixed_key_free(cshims_fixed_key *key) {
    if (key == NULL) return;
    free_table(key->generatorTable);
    free_table(key->keyTable);
    EC_GROUP_free(key->curve);
    free(key);
}

/// j · 256^i · base for every block i and j in 1...perBlock, made affine together (one inversion).
static EC_POINT **make_table(const EC_GROUP *curve, const EC_POINT *base, BN_CTX *ctx) {
    size_t count = (size_t)blocks * perBlock;
    EC_POINT **table = calloc(count, sizeof *table);
    EC_POINT *step = EC_POINT_dup(base, curve);
    if (table == NULL || step == NULL) goto fail;
    for (size_t block = 0; block < blocks; block++) {
        EC_POINT **row = table + block * perBlock;
        if ((row[0] = EC_POINT_dup(step, curve)) == NULL) goto fail;
        for (size_t multiple = 1; multiple < perBlock; multiple++) {
            if ((row[multiple] = EC_POINT_new(curve)) == NULL ||
                EC_POINT_add(curve, row[multiple], row[multiple - 1], step, ctx) != 1) goto fail;
        }
        for (int doubling = 0; doubling < 8; doubling++) {
            if (EC_POINT_dbl(curve, step, step, ctx) != 1) goto fail;
        }
    }
    if (EC_POINTs_make_affine(curve, count, table, ctx) != 1) goto fail;
    EC_POINT_free(step);
    return table;
fail:
    EC_POINT_free(step);
    free_table(table);
    return NULL;
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
    if ((key->curve = EC_GROUP_new_by_curve_name(nid)) == NULL) goto fail;
    if (BN_num_bytes(EC_GROUP_get0_order(key->curve)) != scalarBytes) goto fail;
    q = EC_POINT_new(key->curve);
    if (q == NULL || EC_POINT_oct2point(key->curve, q, point, pointLength, ctx) != 1) goto fail;
    if (EC_POINT_is_at_infinity(key->curve, q) || EC_POINT_is_on_curve(key->curve, q, ctx) != 1) goto fail;
    key->generatorTable = make_table(key->curve, EC_GROUP_get0_generator(key->curve), ctx);
    key->keyTable = make_table(key->curve, q, ctx);
    if (key->generatorTable == NULL || key->keyTable == NULL) goto fail;
    EC_POINT_free(q);
    BN_CTX_free(ctx);
    return key;
fail:
    EC_POINT_free(q);
    BN_CTX_free(ctx);
    cshims_fixed_key_free(key);
    return NULL;
}

/// accumulator += scalar · P, for the P whose table is given; `scratch` holds a negated entry.
static int add_multiple(const EC_GROUP *curve, EC_POINT *accumulator, EC_POINT *const *table, const BIGNUM *scalar,
                        EC_POINT *scratch, BN_CTX *ctx) {
    unsigned char bytes[scalarBytes];
    if (BN_bn2binpad(scalar, bytes, scalarBytes) != scalarBytes) return 0;
    int carry = 0;
    for (int block = 0; block < blocks; block++) {
        int digit = (block < scalarBytes ? bytes[scalarBytes - 1 - block] : 0) + carry;
        carry = 0;
        if (digit > perBlock) {
            digit -= 256;
            carry = 1;
        }
        if (digit == 0) continue;
        const EC_POINT *entry = table[block * perBlock + abs(digit) - 1];
        if (digit < 0) {
            if (EC_POINT_copy(scratch, entry) != 1 || EC_POINT_invert(curve, scratch, ctx) != 1) return 0;
            entry = scratch;
        }
        if (EC_POINT_add(curve, accumulator, accumulator, entry, ctx) != 1) return 0;
    }
    return carry == 0;
}

/// value^-1 mod the group order (prime; 0 < value < order) into `out`; 1 on success. Both fit `scalarBytes`, which
/// cshims_fixed_key_new checked. The signature's s is public, so GMP's variable-time extended gcd is fine, and it is
/// several times faster than BN_mod_inverse (1.7 against 27 µs for P-384).
static int inverse_mod_order(BIGNUM *out, const BIGNUM *value, const BIGNUM *order) {
    unsigned char bytes[scalarBytes];
    mpz_t v, m, inverse;
    mpz_inits(v, m, inverse, NULL);
    int ok = BN_bn2binpad(value, bytes, scalarBytes) == scalarBytes;
    if (ok) mpz_import(v, scalarBytes, 1, 1, 0, 0, bytes);
    ok = ok && BN_bn2binpad(order, bytes, scalarBytes) == scalarBytes;
    if (ok) mpz_import(m, scalarBytes, 1, 1, 0, 0, bytes);
    ok = ok && mpz_invert(inverse, v, m) != 0;
    size_t written = 0;
    if (ok) mpz_export(bytes, &written, 1, 1, 0, 0, inverse);
    ok = ok && BN_bin2bn(bytes, (int)written, out) != NULL;
    mpz_clears(v, m, inverse, NULL);
    return ok;
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
    EC_POINT *sum = EC_POINT_new(curve), *scratch = EC_POINT_new(curve);
    if (ctx == NULL || sum == NULL || scratch == NULL) { result = -1; goto done; }
    BN_CTX_start(ctx);
    BIGNUM *e = BN_CTX_get(ctx), *w = BN_CTX_get(ctx), *u1 = BN_CTX_get(ctx), *u2 = BN_CTX_get(ctx), *x = BN_CTX_get(ctx);
    BIGNUM *zz = BN_CTX_get(ctx), *candidate = BN_CTX_get(ctx), *target = BN_CTX_get(ctx);
    if (target == NULL) { result = -1; goto end; }
    if (BN_is_zero(r) || BN_is_negative(r) || BN_ucmp(r, order) >= 0 ||
        BN_is_zero(s) || BN_is_negative(s) || BN_ucmp(s, order) >= 0) goto end;
    // e: the digest's leftmost bits, as many as the order has.
    int orderBits = BN_num_bits(order);
    size_t used = digest_length;
    if (8 * used > (size_t)orderBits) used = ((size_t)orderBits + 7) / 8;
    if (BN_bin2bn(digest, (int)used, e) == NULL) { result = -1; goto end; }
    if (8 * used > (size_t)orderBits && !BN_rshift(e, e, (int)(8 * used - (size_t)orderBits))) { result = -1; goto end; }
    if (!inverse_mod_order(w, s, order) ||
        !BN_mod_mul(u1, e, w, order, ctx) || !BN_mod_mul(u2, r, w, order, ctx)) { result = -1; goto end; }
    // R = u1·G + u2·Q, from the two tables into one sum.
    if (EC_POINT_set_to_infinity(curve, sum) != 1 ||
        !add_multiple(curve, sum, key->generatorTable, u1, scratch, ctx) ||
        !add_multiple(curve, sum, key->keyTable, u2, scratch, ctx)) { result = -1; goto end; }
    if (EC_POINT_is_at_infinity(curve, sum)) goto end;
    // x(R) mod n = r, checked without converting R to affine form (a field inversion): R is (X, Y, Z) with
    // x = X/Z², so x = v exactly when X = v·Z² (mod p), for v = r and, when r + n < p, v = r + n.
    const BIGNUM *field = EC_GROUP_get0_field(curve);
    if (field == NULL || EC_POINT_get_Jprojective_coordinates_GFp(curve, sum, x, NULL, zz, ctx) != 1 ||
        !BN_mod_sqr(zz, zz, field, ctx) || !BN_copy(candidate, r)) { result = -1; goto end; }
    for (int attempt = 0; attempt < 2 && result == 0; attempt++) {
        if (attempt == 1 && (!BN_add(candidate, candidate, order) || BN_ucmp(candidate, field) >= 0)) break;
        if (!BN_mod_mul(target, candidate, zz, field, ctx)) { result = -1; goto end; }
        if (BN_cmp(target, x) == 0) result = 1;
    }
end:
    BN_CTX_end(ctx);
done:
    EC_POINT_free(sum);
    EC_POINT_free(scratch);
    BN_CTX_free(ctx);
    ECDSA_SIG_free(sig);
    return result;
}
