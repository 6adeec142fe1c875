#ifndef C_SHIMS_H
#define C_SHIMS_H
// Umbrella header. Each concern has its own header and .c file; see the comments there for why each shim exists.
#include "CShimsLinux.h"
#include "CShimsOpenSSL.h"
#include "CShimsRandom.h"
#include "CShimsSHA2.h"
#endif
