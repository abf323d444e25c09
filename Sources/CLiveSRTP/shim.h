// libsrtp2, used only by tests as an independent cross-check of our SRTP (Debian's build is
// on NSS and ~4.5x slower than OpenSSL EVP, so production code never links it).
#ifndef CLIVE_SRTP_SHIM_H
#define CLIVE_SRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
