#include "CShimsOpenSSL.h"

void cshims_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

// HTTP/TLS
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
int cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
long cshims_SSL_MODE_http(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}
