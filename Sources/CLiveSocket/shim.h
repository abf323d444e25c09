// Batched UDP I/O (sendmmsg/recvmmsg) and UDP GSO, which glibc declares only with _GNU_SOURCE.
#ifndef CLIVE_SOCKET_SHIM_H
#define CLIVE_SOCKET_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

static inline int clive_sendmmsg(int fd, struct mmsghdr *msgs, unsigned int count, int flags) {
    return sendmmsg(fd, msgs, count, flags);
}
static inline int clive_recvmmsg(int fd, struct mmsghdr *msgs, unsigned int count, int flags, struct timespec *timeout) {
    return recvmmsg(fd, msgs, count, flags, timeout);
}
static inline int clive_errno(void) { return errno; }
#endif
