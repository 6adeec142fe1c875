#ifndef C_SHIMS_LINUX_H
#define C_SHIMS_LINUX_H
// Linux APIs that Swift's Glibc module does not expose: <sys/epoll.h>, <sys/eventfd.h>, <sys/timerfd.h>, and accept4
// (a GNU extension, visible only with _GNU_SOURCE).
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

int cshims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

// The epoll event bits are C enum members re-#defined as macros; these give Swift plain UInt32 values.
static const uint32_t cshims_EPOLLIN = EPOLLIN;
static const uint32_t cshims_EPOLLOUT = EPOLLOUT;
static const uint32_t cshims_EPOLLERR = EPOLLERR;
static const uint32_t cshims_EPOLLHUP = EPOLLHUP;
static const uint32_t cshims_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t cshims_EPOLLET = EPOLLET;

// SOCK_NONBLOCK / SOCK_CLOEXEC are enum-typed in glibc's headers; accept4 and socket want plain ints.
static const int cshims_SOCK_NONBLOCK = SOCK_NONBLOCK;
static const int cshims_SOCK_CLOEXEC = SOCK_CLOEXEC;
static const int cshims_EFD_NONBLOCK = EFD_NONBLOCK;
static const int cshims_EFD_CLOEXEC = EFD_CLOEXEC;
static const int cshims_TFD_NONBLOCK = TFD_NONBLOCK;
static const int cshims_TFD_CLOEXEC = TFD_CLOEXEC;

/// epoll_event is packed on x86_64, so Swift cannot safely form pointers into an array of them; these accessors
/// read one entry of an array filled by epoll_wait.
static inline uint32_t cshims_epoll_event_events(const struct epoll_event *events, int index) {
    return events[index].events;
}
static inline uint64_t cshims_epoll_event_data(const struct epoll_event *events, int index) {
    return events[index].data.u64;
}
/// Adds, modifies or removes `fd` with `token` as its event data (op is EPOLL_CTL_ADD/MOD/DEL).
int cshims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/// Allocates room for `count` epoll events (freed with free()).
struct epoll_event *cshims_epoll_events_alloc(int count);
#endif
