#include "CShimsOpenSSL.h"

void cshims_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

STACK_OF(X509) *cshims_sk_X509_new_null(void) { return sk_X509_new_null(); }
int cshims_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
int cshims_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
X509 *cshims_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
void cshims_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
void cshims_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

long cshims_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

const unsigned long cshims_XN_FLAG_RFC2253 = XN_FLAG_RFC2253;
