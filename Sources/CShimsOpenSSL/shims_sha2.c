// See CShimsSHA2.h. The SHA256_CTX functions are deprecated in OpenSSL 3.0, not removed.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CShimsSHA2.h"
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdlib.h>

void cshims_sha256(const void *data, size_t count, unsigned char digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, count);
    SHA256_Final(digest, &context);
}

void cshims_sha256_pair(const void *first, size_t firstCount, const void *second, size_t secondCount,
                        unsigned char digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, first, firstCount);
    SHA256_Update(&context, second, secondCount);
    SHA256_Final(digest, &context);
}

void cshims_sha384(const void *data, size_t count, unsigned char digest[48]) {
    SHA512_CTX context;
    SHA384_Init(&context);
    SHA384_Update(&context, data, count);
    SHA384_Final(digest, &context);
}

struct cshims_hmac_sha256_key {
    SHA256_CTX inner;
    SHA256_CTX outer;
};

cshims_hmac_sha256_key *cshims_hmac_sha256_key_new(const unsigned char block[64]) {
    cshims_hmac_sha256_key *key = malloc(sizeof *key);
    if (key == NULL) return NULL;
    unsigned char pad[64];
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&key->inner);
    SHA256_Update(&key->inner, pad, sizeof pad);
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&key->outer);
    SHA256_Update(&key->outer, pad, sizeof pad);
    OPENSSL_cleanse(pad, sizeof pad);
    return key;
}

void cshims_hmac_sha256_key_free(cshims_hmac_sha256_key *key) {
    if (key == NULL) return;
    OPENSSL_cleanse(key, sizeof *key);
    free(key);
}

void cshims_hmac_sha256(const cshims_hmac_sha256_key *key, const void *message, size_t count, unsigned char tag[32]) {
    SHA256_CTX context = key->inner;
    unsigned char innerDigest[32];
    SHA256_Update(&context, message, count);
    SHA256_Final(innerDigest, &context);
    context = key->outer;
    SHA256_Update(&context, innerDigest, sizeof innerDigest);
    SHA256_Final(tag, &context);
    OPENSSL_cleanse(innerDigest, sizeof innerDigest);
    OPENSSL_cleanse(&context, sizeof context);
}
