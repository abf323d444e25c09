// Shim for OpenSSL macros and variadics that Swift cannot import directly.
// Each function is a one-line wrapper; see ../../../shared/SWIFT-C-NOTES.md.
#ifndef CLIVE_OPENSSL_SHIM_H
#define CLIVE_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/core_names.h>

static inline long clive_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline long clive_BIO_set_mem_eof_return(BIO *b, int v) { return BIO_set_mem_eof_return(b, v); }
static inline int clive_BIO_reset(BIO *b) { return (int)BIO_reset(b); }
static inline long clive_DTLS_set_link_mtu(SSL *s, long mtu) { return DTLS_set_link_mtu(s, mtu); }
static inline long clive_SSL_set_mtu(SSL *s, long mtu) { return SSL_set_mtu(s, mtu); }
static inline long clive_DTLSv1_get_timeout(SSL *s, struct timeval *tv) { return DTLSv1_get_timeout(s, tv); }
static inline long clive_DTLSv1_handle_timeout(SSL *s) { return DTLSv1_handle_timeout(s); }
static inline int clive_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline int clive_SSL_CTX_set_max_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_max_proto_version(c, v); }
static inline int clive_SSL_CTX_set1_groups_list(SSL_CTX *c, const char *l) { return (int)SSL_CTX_set1_groups_list(c, l); }
static inline void clive_SSL_CTX_set_read_ahead(SSL_CTX *c, int yes) { SSL_CTX_set_read_ahead(c, yes); }
static inline int clive_SSL_set_tlsext_host_name(SSL *s, const char *name) { return (int)SSL_set_tlsext_host_name(s, name); }
static inline void clive_OPENSSL_free(void *p) { OPENSSL_free(p); }
static inline EVP_PKEY *clive_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline unsigned long clive_OPENSSL_VERSION_NUMBER(void) { return OPENSSL_VERSION_NUMBER; }
static inline uint64_t clive_SSL_OP_NO_QUERY_MTU(void) { return SSL_OP_NO_QUERY_MTU; }
static inline uint64_t clive_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t clive_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t clive_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

// SRTP's per-packet HMAC-SHA1 (OnAirCrypto SRTPAuthenticator): SHA_CTX is a plain struct, so a
// keyed ipad/opad state can be copied per packet with no allocation. EVP_MAC_init re-keying
// allocates twice per packet on OpenSSL 3.0 (measured). The SHA1_* calls are deprecated in 3.0;
// wrapping them here keeps Swift builds warning-free.
#include <openssl/sha.h>
static inline int clive_SHA1_Init(SHA_CTX *c) { return SHA1_Init(c); }
static inline int clive_SHA1_Update(SHA_CTX *c, const void *d, size_t n) { return SHA1_Update(c, d, n); }
static inline int clive_SHA1_Final(unsigned char *md, SHA_CTX *c) { return SHA1_Final(md, c); }

// DTLS (OnAirDTLS): OpenSSL 3.0 aborts a DTLS association on one forged CBC record when
// encrypt-then-MAC is on; without it such records are dropped silently (RFC 6347 4.1.2.7).
static inline uint64_t clive_SSL_OP_NO_ENCRYPT_THEN_MAC(void) { return SSL_OP_NO_ENCRYPT_THEN_MAC; }

#endif
