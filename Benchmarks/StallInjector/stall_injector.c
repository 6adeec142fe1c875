// Takes one CPU away for BUSY_MS every PERIOD_MS, the way a kernel thread that does not yield does (this VM's
// `kdamond.0` ran up to 3.8 ms at once on an idle machine, and 4.0 ms during a half-load run): a spinning thread pinned
// to CPU at SCHED_FIFO priority 1, which no ordinary thread preempts. It shows how an open-loop tail at a given load
// answers to a core lost for a few milliseconds (BENCHMARKS.md, twenty-second session).
//
// Started beside a server, it ends when its parent does (PR_SET_PDEATHSIG), so a wrapper given to scripts/bench-ab.sh
// as a binary can run it for exactly the server's life:
//   #!/bin/sh
//   /tmp/stall_injector 1 4 250 &
//   exec /path/to/attestd "$@"
// SCHED_FIFO needs CAP_SYS_NICE (root here). The kernel's real-time throttling (95 % by default) still applies.
//
// build: gcc -O2 -Wall -Wextra -o /tmp/stall_injector Benchmarks/StallInjector/stall_injector.c
// usage: /tmp/stall_injector CPU BUSY_MS PERIOD_MS
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: stall_injector CPU BUSY_MS PERIOD_MS\n");
        return 2;
    }
    int cpu = atoi(argv[1]);
    int64_t busy = (int64_t)(atof(argv[2]) * 1e6), period = (int64_t)(atof(argv[3]) * 1e6);
    if (cpu < 0 || busy <= 0 || period <= busy) {
        fprintf(stderr, "stall_injector: need CPU >= 0 and 0 < BUSY_MS < PERIOD_MS\n");
        return 2;
    }
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) return 0;  // the parent ended before the signal was armed

    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("stall_injector: sched_setaffinity");
        return 1;
    }
    struct sched_param param = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
        perror("stall_injector: sched_setscheduler (SCHED_FIFO needs CAP_SYS_NICE)");
        return 1;
    }
    // Stalls start on a fixed grid, so a late wake-up does not shift the ones after it.
    for (int64_t start = now_ns();; start += period) {
        while (now_ns() < start + busy) {
        }
        int64_t next = start + period;
        struct timespec at = {.tv_sec = next / 1000000000, .tv_nsec = next % 1000000000};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    }
}
