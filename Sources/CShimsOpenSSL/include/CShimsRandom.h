#ifndef C_SHIMS_RANDOM_H
#define C_SHIMS_RANDOM_H
// Random bytes for the hot path. OpenSSL 3.0's RAND_bytes costs about 6,800 instructions a call whatever the size
// (provider dispatch, the per-thread DRBG's lock and reseed checks); a challenge needs 22 bytes and a token id 16.
// Each thread draws 4 KB from RAND_bytes at a time and hands it out in pieces: every byte is still the DRBG's output,
// handed out once and wiped from the buffer as it goes. A child process after fork() starts with an empty buffer,
// so it never repeats its parent's bytes.
#include <stddef.h>

/// Fills `out` with `count` random bytes; 1 on success, 0 when OpenSSL's generator failed.
int cshims_random_bytes(unsigned char *out, size_t count);
#endif
