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
#include <stdint.h>
#include <string.h>

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

/// UDP generic segmentation offload (Linux 4.18+, include/uapi/linux/udp.h): one send carries
/// several datagrams of `gso_size` bytes each (the last may be shorter) to one destination.
#define CLIVE_SOL_UDP 17
#define CLIVE_UDP_SEGMENT 103

/// Bytes of control buffer one UDP_SEGMENT message needs.
static inline size_t clive_gso_control_size(void) { return CMSG_SPACE(sizeof(uint16_t)); }

/// Writes a UDP_SEGMENT control message for `segment`-byte datagrams into `control`
/// (clive_gso_control_size() bytes, 8-byte aligned).
static inline void clive_write_gso_control(void *control, uint16_t segment) {
    struct cmsghdr *header = (struct cmsghdr *)control;
    header->cmsg_level = CLIVE_SOL_UDP;
    header->cmsg_type = CLIVE_UDP_SEGMENT;
    header->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    memcpy(CMSG_DATA(header), &segment, sizeof segment);
}

/// Whether the kernel knows UDP_SEGMENT on this socket (setting a zero default is a no-op).
static inline int clive_udp_gso_supported(int fd) {
    int zero = 0;
    return setsockopt(fd, CLIVE_SOL_UDP, CLIVE_UDP_SEGMENT, &zero, sizeof zero) == 0;
}
#endif
