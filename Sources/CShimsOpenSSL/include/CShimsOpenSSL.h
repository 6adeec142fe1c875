#ifndef C_SHIMS_OPENSSL_H
#define C_SHIMS_OPENSSL_H
// What Swift cannot import from OpenSSL, for its two owners: Crypto (libcrypto) and TLS (libssl). This header holds
// the function-like macros (each wrapper named after the macro it expands); the hot-path random bytes and SHA-2
// have headers of their own, included at the end.
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

void cshims_OPENSSL_free(void *ptr);

// TLS: SSL_CTX settings that OpenSSL 3 still spells as SSL_CTX_ctrl macros.
/// SSL_CTX_set_mode (e.g. SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
/// SSL_CTX_set_min_proto_version (e.g. TLS1_2_VERSION).
int cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
/// The SSL_MODE_* bits the TLS module sets on every server context: partial writes, a write buffer that may move
/// between retries (Swift arrays do), and record buffers released while a connection is idle (about 34 KB each
/// otherwise: 10,000 idle TLS connections held 509 MB with them, against 200 MB allowed).
long cshims_SSL_MODE_http(void);
/// SSL_CTX_set_session_cache_mode (SSL_SESS_CACHE_OFF: session tickets carry the session, so the server keeps none).
long cshims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode);
/// SSL_OP_ENABLE_KTLS, an SSL_OP_BIT(3) expression Swift does not import: kernel TLS asked for, used where the
/// kernel and the negotiated cipher allow it.
extern const uint64_t cshims_SSL_OP_ENABLE_KTLS;
/// BIO_get_ktls_send and BIO_get_ktls_recv (macros over BIO_ctrl): 1 when the kernel protects the records this
/// socket BIO sends (receives), 0 otherwise.
int cshims_BIO_get_ktls_send(BIO *bio);
int cshims_BIO_get_ktls_recv(BIO *bio);

// TLS clients (the TLS module's one client: Redis over TLS, attestd-bench, the HTTP tests): how the server is named
// in a handshake. An IP address (v4 or v6) is matched against the certificate's IP addresses and never sent as SNI
// (RFC 6066 forbids it); a DNS name is matched against its DNS names and sent as SNI (a macro over SSL_ctrl). `check`
// 0 sends the name without checking the certificate for it. 1 when done; 0 when OpenSSL refused the check; -1 when it refused the SNI.
int cshims_SSL_expect_peer_name(SSL *ssl, const char *name, int check);

// STACK_OF(X509) is a family of macros over OPENSSL_sk_*: certificate chains cross this edge as X509 stacks.
STACK_OF(X509) *cshims_sk_X509_new_null(void);
int cshims_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate);
int cshims_sk_X509_num(const STACK_OF(X509) *stack);
X509 *cshims_sk_X509_value(const STACK_OF(X509) *stack, int index);
// Frees the stack only; the certificates stay owned by whoever pushed them.
void cshims_sk_X509_free(STACK_OF(X509) *stack);
// Frees the stack and drops one reference to each certificate (for stacks returned by get1 functions).
void cshims_sk_X509_pop_free(STACK_OF(X509) *stack);

// STACK_OF(GENERAL_NAME) (a certificate's subjectAltName) is likewise a family of macros.
int cshims_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *names);
GENERAL_NAME *cshims_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *names, int index);

// BIO_get_mem_data is a macro over BIO_ctrl: the bytes a memory BIO holds, without copying.
long cshims_BIO_get_mem_data(BIO *bio, char **data);

// XN_FLAG_RFC2253 is an OR of several macros, which Swift does not import.
extern const unsigned long cshims_XN_FLAG_RFC2253;

// Errors: one loop that empties this thread's OpenSSL error queue into "reason; reason; ...", shared by every module
// that reports OpenSSL failures (through Crypto's OpenSSLErrorQueue). Writes at most
// `capacity` bytes including the NUL; returns the length written.
size_t cshims_ERR_drain(char *buffer, size_t capacity);

#include "CShimsRandom.h"
#include "CShimsSHA2.h"
#endif
