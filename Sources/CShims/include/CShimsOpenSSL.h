#ifndef C_SHIMS_OPENSSL_H
#define C_SHIMS_OPENSSL_H
// OpenSSL function-like macros, which Swift cannot call. Each wrapper is named after the macro it expands.
#include <openssl/ssl.h>
#include <openssl/crypto.h>

void cshims_OPENSSL_free(void *ptr);
#endif
