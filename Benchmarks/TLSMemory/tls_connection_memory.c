/*
 * What OpenSSL keeps for one idle server connection: the measurement behind BENCHMARKS.md's bound on idle TLS
 * connections (twelfth session). Run by scripts/tls-connection-memory.sh, which makes the certificate.
 *
 * It sets up the server's SSL_CTX as attestd does (TLS 1.2 minimum, partial writes, a moving write buffer,
 * SSL_MODE_RELEASE_BUFFERS, ALPN h2), then makes N connections over socketpairs: a full handshake with a client
 * context, a few bytes each way (a client preface, a server SETTINGS), and the client's end closed. Every
 * allocation OpenSSL makes through CRYPTO_set_mem_functions is tagged with the side it was made for; what the
 * server side still holds at the end, divided by N, is what an idle connection costs in OpenSSL, before malloc's own
 * per-block overhead. The last connection's live blocks are listed by the source line that allocated them.
 */
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CLIENT = 0, SERVER = 1 };
typedef struct { size_t size; int side; const char *file; int line; void *next, *prev; } block_header;

static __thread int side;       /* whose work runs now */
static long live_bytes[2];
static long live_blocks[2];
static block_header live_list;  /* the server side's live blocks, to list them by source line */

static void track(block_header *h) { h->next = live_list.next; h->prev = &live_list; ((block_header *)live_list.next)->prev = h; live_list.next = h; }
static void untrack(block_header *h) { ((block_header *)h->prev)->next = h->next; ((block_header *)h->next)->prev = h->prev; }

static void *tagged_malloc(size_t n, const char *file, int line) {
    block_header *h = malloc(sizeof *h + n);
    if (h == NULL) return NULL;
    *h = (block_header){ n, side, file, line, NULL, NULL };
    live_bytes[side] += n;
    live_blocks[side] += 1;
    if (side == SERVER) track(h);
    return h + 1;
}

static void tagged_free(void *p, const char *file, int line) {
    (void)file; (void)line;
    if (p == NULL) return;
    block_header *h = (block_header *)p - 1;
    live_bytes[h->side] -= h->size;
    live_blocks[h->side] -= 1;
    if (h->side == SERVER) untrack(h);
    free(h);
}

static void *tagged_realloc(void *p, size_t n, const char *file, int line) {
    if (p == NULL) return tagged_malloc(n, file, line);
    block_header *old = (block_header *)p - 1;
    void *q = tagged_malloc(n, file, line);
    if (q == NULL) return NULL;
    memcpy(q, p, old->size < n ? old->size : n);
    tagged_free(p, file, line);
    return q;
}

static unsigned char alpn_h2[] = { 2, 'h', '2' };

static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                     unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    return SSL_select_next_proto((unsigned char **)out, outlen, alpn_h2, sizeof alpn_h2, in, inlen) == OPENSSL_NPN_NEGOTIATED
        ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s CERT KEY [CONNECTIONS] [tls1.2]\n", argv[0]); return 2; }
    int count = argc > 3 ? atoi(argv[3]) : 2000;
    int tls12 = argc > 4 && strcmp(argv[4], "tls1.2") == 0;
    live_list.next = live_list.prev = &live_list;
    if (!CRYPTO_set_mem_functions(tagged_malloc, tagged_realloc, tagged_free)) { fprintf(stderr, "allocator not set\n"); return 1; }

    SSL_CTX *server_ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_set_min_proto_version(server_ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(server_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    if (SSL_CTX_use_certificate_chain_file(server_ctx, argv[1]) != 1 ||
        SSL_CTX_use_PrivateKey_file(server_ctx, argv[2], SSL_FILETYPE_PEM) != 1) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_alpn_select_cb(server_ctx, select_h2, NULL);
    SSL_CTX *client_ctx = SSL_CTX_new(TLS_client_method());
    if (tls12) SSL_CTX_set_max_proto_version(client_ctx, TLS1_2_VERSION);
    SSL_CTX_set_alpn_protos(client_ctx, alpn_h2, sizeof alpn_h2);

    SSL **kept = calloc((size_t)count, sizeof *kept);
    long before_bytes = live_bytes[SERVER], before_blocks = live_blocks[SERVER];
    block_header *before_last = live_list.next;
    for (int i = 0; i < count; i++) {
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) { perror("socketpair"); return 1; }
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        fcntl(fds[1], F_SETFL, O_NONBLOCK);
        if (i == count - 1) before_last = live_list.next;
        side = SERVER;
        SSL *server = SSL_new(server_ctx);
        SSL_set_fd(server, fds[0]);
        SSL_set_accept_state(server);
        side = CLIENT;
        SSL *client = SSL_new(client_ctx);
        SSL_set_fd(client, fds[1]);
        SSL_set_connect_state(client);
        for (int round = 0; round < 20 && !(SSL_is_init_finished(server) && SSL_is_init_finished(client)); round++) {
            side = CLIENT; SSL_do_handshake(client);
            side = SERVER; SSL_do_handshake(server);
        }
        if (!SSL_is_init_finished(server)) { fprintf(stderr, "handshake %d did not finish\n", i); return 1; }
        char bytes[64] = { 0 };
        side = CLIENT; SSL_write(client, bytes, 24);                       /* the client preface */
        side = SERVER; SSL_read(server, bytes, sizeof bytes); SSL_write(server, bytes, 15);  /* SETTINGS */
        side = CLIENT; SSL_read(client, bytes, sizeof bytes); SSL_read(client, bytes, sizeof bytes);
        side = SERVER; SSL_read(server, bytes, sizeof bytes);              /* nothing more: the idle state */
        ERR_clear_error();
        side = CLIENT; SSL_free(client); close(fds[1]);
        kept[i] = server;
    }
    printf("%s server connections: %d; OpenSSL holds %.0f bytes in %.1f blocks per connection\n",
           SSL_get_version(kept[0]), count, (double)(live_bytes[SERVER] - before_bytes) / count,
           (double)(live_blocks[SERVER] - before_blocks) / count);
    printf("the last connection's blocks, by the line that allocated them:\n");
    for (block_header *h = live_list.next; h != before_last; h = h->next)
        printf("  %6zu  %s:%d\n", h->size, h->file, h->line);
    return 0;
}
