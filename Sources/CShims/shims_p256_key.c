// See CShimsP256Key.h. The checks are ECDSA's, as OpenSSL's ossl_ecdsa_simple_verify_sig does them (r and s in
// [1, n-1], w = s^-1, u1 = e·w, u2 = r·w, R = u1·G + u2·Q not the point at infinity, x(R) mod n = r); only the
// multiplication differs, and it runs on OpenSSL's own P-256 assembly (ecp_nistz256), the arithmetic its P-256
// verification uses. Everything here is public data (a signature being checked), so nothing needs constant time.
//
// How the multiplication is split:
// - u1·G: OpenSSL's table of the generator's multiples (37 rows of 64 affine points, k·2^(7i)·G), one addition per
//   7-bit signed digit of u1, no doubling. This is what OpenSSL does too.
// - u2·Q: OpenSSL recomputes 16 multiples of Q for every verification and then doubles 255 times. Here the key
//   keeps k·2^(65j)·Q for k in 1...16 and j in 0...3 (64 points, 6 KB), made once. u2's 52 signed 5-bit digits fall
//   in four groups of 13, one group per j, and the four groups share their doublings: 60 doublings and at most 52
//   additions instead of 255 and 52.
// Additions into the Q sum and the final u1·G + u2·Q use the general addition, which handles equal and opposite
// points; only the generator's rows use the mixed one, where no partial sum can equal the next entry (see
// add_generator_multiple).
#include "CShimsP256Key.h"
#include <gmp.h>
#include <openssl/core_names.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

/// A field element mod p, in OpenSSL's Montgomery form (times 2^256), least significant limb first.
typedef uint64_t felem[4];
/// Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at infinity.
typedef struct { felem X, Y, Z; } jacobian_point;
/// Affine coordinates; (0, 0) stands for the point at infinity.
typedef struct { felem X, Y; } affine_point;

// libcrypto.a's ecp_nistz256-x86_64.o, linked statically (libcrypto.so does not export it): see Package.swift.
void ecp_nistz256_point_double(jacobian_point *r, const jacobian_point *a);
void ecp_nistz256_point_add(jacobian_point *r, const jacobian_point *a, const jacobian_point *b);
void ecp_nistz256_point_add_affine(jacobian_point *r, const jacobian_point *a, const affine_point *b);
void ecp_nistz256_neg(felem r, const felem a);
void ecp_nistz256_add(felem r, const felem a, const felem b);
void ecp_nistz256_sub(felem r, const felem a, const felem b);
void ecp_nistz256_mul_by_3(felem r, const felem a);
void ecp_nistz256_mul_mont(felem r, const felem a, const felem b);
void ecp_nistz256_sqr_mont(felem r, const felem a);
void ecp_nistz256_to_mont(felem r, const felem a);
void ecp_nistz256_ord_mul_mont(felem r, const felem a, const felem b);
extern const affine_point ecp_nistz256_precomputed[37][64];

/// The CPU features the assembly reads to pick its instructions. libcrypto.so keeps its own copy private, so this
/// binary carries one: only word 2 (CPUID leaf 7, EBX) is read by the P-256 code, for BMI2 and ADX (mulx/adcx).
unsigned int OPENSSL_ia32cap_P[4];

__attribute__((constructor)) static void detect_cpu_features(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) OPENSSL_ia32cap_P[2] = ebx & ((1u << 8) | (1u << 19));
}

/// 1 in Montgomery form.
static const felem montgomeryOne = {0x0000000000000001, 0xffffffff00000000, 0xffffffffffffffff, 0x00000000fffffffe};

enum { groups = 4, digitsPerGroup = 13, multiples = 16, groupBits = 5 * digitsPerGroup };

struct cshims_p256_key {
    /// [j][k - 1] = k · 2^(65j) · Q.
    jacobian_point multiples[groups][multiples];
};

/// A big-endian 32-byte number as limbs, least significant first.
static void limbs_from_bytes(felem out, const unsigned char bytes[32]) {
    for (int limb = 0; limb < 4; limb++) {
        uint64_t value = 0;
        for (int byte = 0; byte < 8; byte++) value = value << 8 | bytes[32 - 8 * (limb + 1) + byte];
        out[limb] = value;
    }
}

static int is_zero(const felem value) { return (value[0] | value[1] | value[2] | value[3]) == 0; }

/// The order n of P-256's group and its field prime p, least significant limb first.
static const felem order = {0xf3b9cac2fc632551, 0xbce6faada7179e84, 0xffffffffffffffff, 0xffffffff00000000};
static const felem prime = {0xffffffffffffffff, 0x00000000ffffffff, 0x0000000000000000, 0xffffffff00000001};

/// a < b, as 256-bit numbers.
static int less_than(const felem a, const felem b) {
    for (int limb = 3; limb >= 0; limb--) {
        if (a[limb] != b[limb]) return a[limb] < b[limb];
    }
    return 0;
}

/// out = a + b; the carry out of the top limb.
static uint64_t add_carry(felem out, const felem a, const felem b) {
    unsigned __int128 carry = 0;
    for (int limb = 0; limb < 4; limb++) {
        carry += (unsigned __int128)a[limb] + b[limb];
        out[limb] = (uint64_t)carry;
        carry >>= 64;
    }
    return (uint64_t)carry;
}

/// y² = x³ - 3x + b, for x and y in Montgomery form.
static int on_curve(const felem x, const felem y) {
    static const felem b = {0x3bce3c3e27d2604b, 0x651d06b0cc53b0f6, 0xb3ebbd55769886bc, 0x5ac635d8aa3a93e7};
    felem bMontgomery, left, right, threeX;
    ecp_nistz256_to_mont(bMontgomery, b);
    ecp_nistz256_sqr_mont(left, y);
    ecp_nistz256_sqr_mont(right, x);
    ecp_nistz256_mul_mont(right, right, x);
    ecp_nistz256_mul_by_3(threeX, x);
    ecp_nistz256_sub(right, right, threeX);
    ecp_nistz256_add(right, right, bMontgomery);
    return memcmp(left, right, sizeof(felem)) == 0;
}

cshims_p256_key *cshims_p256_key_new(EVP_PKEY *pkey) {
    char name[64];
    size_t nameLength = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &nameLength) != 1 ||
        (strcmp(name, "prime256v1") != 0 && strcmp(name, "P-256") != 0)) return NULL;
    // The point as OpenSSL imported it: on the curve (EVP_PKEY_fromdata and d2i_PUBKEY check), uncompressed.
    unsigned char point[65];
    size_t pointLength = 0;
    if (EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &pointLength) != 1 ||
        pointLength != 65 || point[0] != 0x04) return NULL;
    jacobian_point base;
    felem x, y;
    limbs_from_bytes(x, point + 1);
    limbs_from_bytes(y, point + 33);
    // OpenSSL checked the point when it imported the key; the table is only sound for a point on the curve, so it
    // is checked here too rather than trusted.
    if (!less_than(x, prime) || !less_than(y, prime)) return NULL;
    ecp_nistz256_to_mont(base.X, x);
    ecp_nistz256_to_mont(base.Y, y);
    memcpy(base.Z, montgomeryOne, sizeof(felem));
    if (!on_curve(base.X, base.Y)) return NULL;
    cshims_p256_key *key = malloc(sizeof(cshims_p256_key));
    if (key == NULL) return NULL;
    for (int group = 0; group < groups; group++) {
        jacobian_point *row = key->multiples[group];
        row[0] = base;
        for (int k = 2; k <= multiples; k++) {
            if (k % 2 == 0) ecp_nistz256_point_double(&row[k - 1], &row[k / 2 - 1]);
            else ecp_nistz256_point_add(&row[k - 1], &row[k - 2], &base);
        }
        if (group == groups - 1) break;
        for (int doubling = 0; doubling < groupBits; doubling++) ecp_nistz256_point_double(&base, &base);
    }
    return key;
}

void cshims_p256_key_free(cshims_p256_key *key) { free(key); }

/// Booth's signed digit of a scalar (little-endian bytes, zero-padded) for the window of `width` bits starting at
/// bit `start`, which also reads the bit below it: the magnitude (0...2^(width-1)) and whether it is negative.
static int signed_digit(const unsigned char *scalar, int start, int width, int *negative) {
    unsigned int window;
    if (start == 0) {
        window = (scalar[0] << 1) & ((1u << (width + 1)) - 1);
    } else {
        int below = start - 1;
        window = (scalar[below / 8] | (unsigned int)scalar[below / 8 + 1] << 8) >> (below % 8);
        window &= (1u << (width + 1)) - 1;
    }
    // window's top bit set: the digit is window - 2^(width+1), rounded up by the bit below (as _booth_recode_w*).
    unsigned int top = window >> width;
    unsigned int value = top ? (1u << (width + 1)) - window - 1 : window;
    *negative = (int)top;
    return (int)((value >> 1) + (value & 1));
}

/// sum += scalar · G, from OpenSSL's generator table.
static void add_generator_multiple(jacobian_point *sum, const unsigned char *scalar) {
    // Before row i the sum is s·G with |s| < 2^(7i-1); row i adds d·2^(7i)·G with 1 <= |d| <= 64. For i <= 35 both
    // are below n/2 in size, so the sum can never equal the entry (the mixed addition's one unhandled case); row 36
    // could wrap mod n and is added with the general addition.
    for (int row = 0; row < 37; row++) {
        int negative = 0;
        int digit = signed_digit(scalar, 7 * row, 7, &negative);
        if (digit == 0) continue;
        affine_point entry = ecp_nistz256_precomputed[row][digit - 1];
        if (negative) ecp_nistz256_neg(entry.Y, entry.Y);
        if (row < 36) {
            ecp_nistz256_point_add_affine(sum, sum, &entry);
        } else {
            jacobian_point general;
            memcpy(general.X, entry.X, sizeof(felem));
            memcpy(general.Y, entry.Y, sizeof(felem));
            memcpy(general.Z, montgomeryOne, sizeof(felem));
            ecp_nistz256_point_add(sum, sum, &general);
        }
    }
}

/// scalar · Q, from the key's table: the four digit groups in step, doubling the shared sum 5 times per digit.
static void key_multiple(jacobian_point *product, const cshims_p256_key *key, const unsigned char *scalar) {
    memset(product, 0, sizeof *product);
    for (int position = digitsPerGroup - 1; position >= 0; position--) {
        if (position != digitsPerGroup - 1) {
            for (int doubling = 0; doubling < 5; doubling++) ecp_nistz256_point_double(product, product);
        }
        for (int group = 0; group < groups; group++) {
            int negative = 0;
            int digit = signed_digit(scalar, groupBits * group + 5 * position, 5, &negative);
            if (digit == 0) continue;
            jacobian_point entry = key->multiples[group][digit - 1];
            if (negative) ecp_nistz256_neg(entry.Y, entry.Y);
            ecp_nistz256_point_add(product, product, &entry);
        }
    }
}

/// One DER INTEGER at *cursor, minimally encoded, non-negative and at most 256 bits, into `value`. 0 when it is
/// anything else: ECDSA_verify refuses a signature whose DER does not re-encode to the same bytes.
static int read_integer(const unsigned char **cursor, const unsigned char *end, felem value) {
    const unsigned char *bytes = *cursor;
    if (end - bytes < 3 || bytes[0] != 0x02 || bytes[1] == 0 || bytes[1] >= 0x80 || bytes[1] > end - bytes - 2) return 0;
    size_t length = bytes[1];
    const unsigned char *content = bytes + 2;
    if (content[0] & 0x80) return 0;                                  // negative
    if (length > 1 && content[0] == 0 && !(content[1] & 0x80)) return 0;  // a needless leading zero
    *cursor = content + length;
    if (content[0] == 0) { content++; length--; }
    if (length > 32) return 0;
    unsigned char padded[32] = {0};
    memcpy(padded + 32 - length, content, length);
    limbs_from_bytes(value, padded);
    return 1;
}

/// r and s from a DER ECDSA-Sig-Value with nothing after it; 0 for anything else.
static int read_signature(const unsigned char *signature, size_t length, felem r, felem s) {
    if (length < 2 || signature[0] != 0x30 || signature[1] >= 0x80 || (size_t)signature[1] + 2 != length) return 0;
    const unsigned char *cursor = signature + 2, *end = signature + length;
    return read_integer(&cursor, end, r) && read_integer(&cursor, end, s) && cursor == end;
}

/// s^-1 mod n, times 2^256 (Montgomery form mod n), for s in [1, n-1]. s is public, so GMP's extended gcd, whose time
/// depends on s, is fine: about 1.3 µs here, against about 5 µs (under load) for the constant-time addition chain
/// OpenSSL uses (ecp_nistz256_inv_mod_ord, which a signature needs for its secret nonce) and 14 µs for
/// BN_mod_inverse. One Montgomery multiplication by 2^512 mod n then gives the Montgomery form.
static void inverse_mod_order(felem out, const felem s) {
    _Static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "GMP limbs are the felem's 64-bit limbs");
    static const felem rr = {0x83244c95be79eea2, 0x4699799c49bd6fa6, 0x2845b2392b6bec59, 0x66e12d94f3d95620};
    mpz_t value, modulus, inverse;
    mpz_roinit_n(value, (const mp_limb_t *)s, 4);
    mpz_roinit_n(modulus, (const mp_limb_t *)order, 4);
    mpz_init2(inverse, 256);
    // n is prime and 0 < s < n: the inverse exists.
    mpz_invert(inverse, value, modulus);
    felem plain;
    for (int i = 0; i < 4; i++) plain[i] = mpz_getlimbn(inverse, i);
    mpz_clear(inverse);
    ecp_nistz256_ord_mul_mont(out, plain, rr);
}

/// x(point) = value (a number below p): X = value·Z² (mod p), compared without an inversion.
static int x_equals(const jacobian_point *point, const felem value) {
    felem montgomery, zz, product;
    ecp_nistz256_to_mont(montgomery, value);
    ecp_nistz256_sqr_mont(zz, point->Z);
    ecp_nistz256_mul_mont(product, montgomery, zz);
    return memcmp(product, point->X, sizeof(felem)) == 0;
}

int cshims_p256_key_verify(const cshims_p256_key *key, const unsigned char *digest, size_t digest_length,
                           const unsigned char *signature, size_t signature_length) {
    felem r, s, e, w, u1, u2;
    if (!read_signature(signature, signature_length, r, s)) return 0;
    if (is_zero(r) || is_zero(s) || !less_than(r, order) || !less_than(s, order)) return 0;
    // e: the digest's leftmost 256 bits, reduced mod n (it is below 2n).
    unsigned char leftmost[32] = {0};
    size_t used = digest_length < 32 ? digest_length : 32;
    memcpy(leftmost + 32 - used, digest, used);
    limbs_from_bytes(e, leftmost);
    if (!less_than(e, order)) {
        felem negatedOrder = {~order[0] + 1, ~order[1], ~order[2], ~order[3]};
        add_carry(e, e, negatedOrder);
    }
    // w = s^-1 in Montgomery form, so that each product below comes out plain: u1 = e·w, u2 = r·w (mod n).
    inverse_mod_order(w, s);
    ecp_nistz256_ord_mul_mont(u1, e, w);
    ecp_nistz256_ord_mul_mont(u2, r, w);

    // Little-endian bytes with two zero bytes above, for the windows that read past bit 255.
    unsigned char u1Bytes[34] = {0}, u2Bytes[34] = {0};
    memcpy(u1Bytes, u1, 32);
    memcpy(u2Bytes, u2, 32);
    jacobian_point sum, keyPart;
    memset(&sum, 0, sizeof sum);
    add_generator_multiple(&sum, u1Bytes);
    key_multiple(&keyPart, key, u2Bytes);
    ecp_nistz256_point_add(&sum, &sum, &keyPart);
    if (is_zero(sum.Z)) return 0;
    // x(R) mod n = r: x = r, or x = r + n when that is still below p.
    if (x_equals(&sum, r)) return 1;
    felem candidate;
    return add_carry(candidate, r, order) == 0 && less_than(candidate, prime) && x_equals(&sum, candidate);
}

#else
// Other architectures keep OpenSSL's own verification: callers fall back when there is no table.
cshims_p256_key *cshims_p256_key_new(EVP_PKEY *pkey) { (void)pkey; return NULL; }
void cshims_p256_key_free(cshims_p256_key *key) { (void)key; }
int cshims_p256_key_verify(const cshims_p256_key *key, const unsigned char *digest, size_t digest_length,
                           const unsigned char *signature, size_t signature_length) {
    (void)key; (void)digest; (void)digest_length; (void)signature; (void)signature_length;
    return -1;
}
#endif
