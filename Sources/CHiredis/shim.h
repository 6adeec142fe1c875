#ifndef C_HIREDIS_SHIM_H
#define C_HIREDIS_SHIM_H
// Debian 12 ships hiredis 0.14.1, which has no TLS (hiredis_ssl arrived in 1.0).
#include <hiredis/hiredis.h>
#endif
