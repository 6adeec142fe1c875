#include "CShimsOpenSSL.h"

void cshims_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }
