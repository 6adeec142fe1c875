#ifndef C_SHIMS_OPENSSL_H
#define C_SHIMS_OPENSSL_H
// OpenSSL function-like macros, which Swift cannot call. Each wrapper is named after the macro it expands.
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

void cshims_OPENSSL_free(void *ptr);

// STACK_OF(X509) is a family of macros over OPENSSL_sk_*: certificate chains cross this edge as X509 stacks.
STACK_OF(X509) *cshims_sk_X509_new_null(void);
int cshims_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate);
int cshims_sk_X509_num(const STACK_OF(X509) *stack);
X509 *cshims_sk_X509_value(const STACK_OF(X509) *stack, int index);
// Frees the stack only; the certificates stay owned by whoever pushed them.
void cshims_sk_X509_free(STACK_OF(X509) *stack);
// Frees the stack and drops one reference to each certificate (for stacks returned by get1 functions).
void cshims_sk_X509_pop_free(STACK_OF(X509) *stack);

// BIO_get_mem_data is a macro over BIO_ctrl: the bytes a memory BIO holds, without copying.
long cshims_BIO_get_mem_data(BIO *bio, char **data);

// XN_FLAG_RFC2253 is an OR of several macros, which Swift does not import.
extern const unsigned long cshims_XN_FLAG_RFC2253;
#endif
