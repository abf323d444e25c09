// Batched UDP sends. glibc declares sendmmsg/struct mmsghdr only under _GNU_SOURCE, and
// defining that here changes struct definitions (fd_set, udphdr) that other Clang modules
// (CNIOLinux, Dispatch) also see, which breaks clean builds. So we declare our own
// layout-identical struct and make the system call directly.
#ifndef CLIVE_SOCKET_SHIM_H
#define CLIVE_SOCKET_SHIM_H
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

/// The kernel's struct mmsghdr (include/linux/socket.h).
struct clive_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

static inline int clive_sendmmsg(int fd, struct clive_mmsghdr *msgs, unsigned int count, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, msgs, count, flags);
}
static inline int clive_recvmmsg(int fd, struct clive_mmsghdr *msgs, unsigned int count, int flags, struct timespec *timeout) {
    return (int)syscall(SYS_recvmmsg, fd, msgs, count, flags, timeout);
}
static inline int clive_errno(void) { return errno; }
#endif
