#include "CShimsRandom.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>

enum { buffer_bytes = 4096 };

static _Thread_local unsigned char buffer[buffer_bytes];
/// The unread bytes are the buffer's last `available`.
static _Thread_local size_t available;

// fork() copies only the calling thread, with its buffer: the child must not hand out what the parent will.
static void forget_after_fork(void) { available = 0; }
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void register_fork_handler(void) { pthread_atfork(NULL, NULL, forget_after_fork); }

int cshims_random_bytes(unsigned char *out, size_t count) {
    if (count == 0) return 1;
    if (count > buffer_bytes / 4) return count <= INT_MAX && RAND_bytes(out, (int)count) == 1;
    pthread_once(&fork_handler_once, register_fork_handler);
    if (count > available) {
        if (RAND_bytes(buffer, buffer_bytes) != 1) return 0;
        available = buffer_bytes;
    }
    unsigned char *start = buffer + buffer_bytes - available;
    memcpy(out, start, count);
    OPENSSL_cleanse(start, count);
    available -= count;
    return 1;
}
