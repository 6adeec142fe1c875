#ifndef C_SHIMS_OPENSSL_H
#define C_SHIMS_OPENSSL_H
// OpenSSL function-like macros, which Swift cannot call. Each wrapper is named after the macro it expands.
#include <openssl/ssl.h>
#include <openssl/crypto.h>

void cshims_OPENSSL_free(void *ptr);

// HTTP/TLS: SSL_CTX settings that OpenSSL 3 still spells as SSL_CTX_ctrl macros.
/// SSL_CTX_set_mode (e.g. SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
/// SSL_CTX_set_min_proto_version (e.g. TLS1_2_VERSION).
int cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
/// The SSL_MODE_* bits the HTTP module sets on every context: partial writes, a write buffer that may move
/// between retries (Swift arrays do).
long cshims_SSL_MODE_http(void);
#endif
