#ifndef C_SHIMS_LINUX_H
#define C_SHIMS_LINUX_H
// Linux APIs that Swift's Glibc module does not expose: <sys/epoll.h>, <sys/eventfd.h>, and accept4 (a GNU
// extension, visible only with _GNU_SOURCE).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

int cshims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
#endif
