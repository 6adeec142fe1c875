#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/socket.h>
#include "CShimsLinux.h"

int cshims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int cshims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

struct epoll_event *cshims_epoll_events_alloc(int count) {
    return calloc((size_t)count, sizeof(struct epoll_event));
}
