#include "CShimsOpenSSL.h"
#include <arpa/inet.h>
#include <openssl/err.h>
#include <stdio.h>

void cshims_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

// TLS
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
int cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
long cshims_SSL_MODE_http(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS;
}
long cshims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
const uint64_t cshims_SSL_OP_ENABLE_KTLS = SSL_OP_ENABLE_KTLS;
int cshims_BIO_get_ktls_send(BIO *bio) { return BIO_get_ktls_send(bio) ? 1 : 0; }
int cshims_BIO_get_ktls_recv(BIO *bio) { return BIO_get_ktls_recv(bio) ? 1 : 0; }

int cshims_SSL_expect_peer_name(SSL *ssl, const char *name, int check) {
    unsigned char address[16];
    if (inet_pton(AF_INET, name, address) == 1 || inet_pton(AF_INET6, name, address) == 1) {
        return !check || X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 ? 1 : 0;
    }
    if (check && SSL_set1_host(ssl, name) != 1) return 0;
    // OpenSSL copies the name.
    return SSL_set_tlsext_host_name(ssl, name) == 1 ? 1 : -1;
}

STACK_OF(X509) *cshims_sk_X509_new_null(void) { return sk_X509_new_null(); }
int cshims_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
int cshims_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *cshims_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
void cshims_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
void cshims_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

int cshims_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *names) { return sk_GENERAL_NAME_num(names); }
GENERAL_NAME *cshims_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *names, int index) {
    return sk_GENERAL_NAME_value(names, index);
}

long cshims_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

const unsigned long cshims_XN_FLAG_RFC2253 = XN_FLAG_RFC2253;

// Errors
size_t cshims_ERR_drain(char *buffer, size_t capacity) {
    size_t used = 0;
    if (capacity == 0) return 0;
    buffer[0] = 0;
    unsigned long code;
    while ((code = ERR_get_error()) != 0) {
        char reason[256];
        ERR_error_string_n(code, reason, sizeof reason);
        const char *separator = used == 0 ? "" : "; ";
        int written = snprintf(buffer + used, capacity - used, "%s%s", separator, reason);
        if (written < 0) break;
        used += (size_t)written < capacity - used ? (size_t)written : capacity - used - 1;
    }
    return used;
}
