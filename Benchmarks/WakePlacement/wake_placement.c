// Where does Linux put a thread that another thread wakes while it keeps working, and how long does the woken
// thread wait to run? This is the verifier pool's hand-off in miniature: a "loop" thread wakes a "worker" through an
// eventfd and then works on for BUSY_US, as an event loop does after handing a job over; the worker works WORK_US and
// waits for the next wake-up. The loop sleeps IDLE_US between rounds, so neither CPU is saturated.
//
// It prints the share of wake-ups after which the worker ran on the loop's CPU, and the wake-to-run delay. On a
// kernel that spreads wake-ups over idle CPUs the worker runs beside the loop within tens of microseconds; on one
// that packs them onto the waker's CPU, it waits out the loop's BUSY_US. `PIN=1` pins the loop to CPU 0 and the
// worker to CPU 1, which forces the spread (BENCHMARKS.md, twenty-first session).
//
// build: gcc -O2 -o /tmp/wake_placement Benchmarks/WakePlacement/wake_placement.c -lpthread
// usage: [PIN=1] /tmp/wake_placement [BUSY_US (60)] [WORK_US (50)] [IDLE_US (140)] [ROUNDS (5000)]
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void spin_us(uint64_t us) {
    uint64_t end = now_ns() + us * 1000;
    while (now_ns() < end) {}
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
}

static int wake_fd;
static int rounds;
static uint64_t work_us;
static _Atomic uint64_t woken_at;  // when the loop wrote the eventfd
static _Atomic int loop_cpu;       // the CPU the loop ran on when it did
static uint64_t *delays;
static int *same_cpu;

static void *worker(void *unused) {
    (void)unused;
    if (getenv("PIN")) pin(1);
    for (int i = 0; i < rounds; i++) {
        uint64_t value;
        if (read(wake_fd, &value, sizeof value) != sizeof value) return NULL;
        delays[i] = now_ns() - woken_at;
        same_cpu[i] = sched_getcpu() == loop_cpu;
        spin_us(work_us);
    }
    return NULL;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    uint64_t busy_us = argc > 1 ? strtoull(argv[1], NULL, 10) : 60;
    work_us = argc > 2 ? strtoull(argv[2], NULL, 10) : 50;
    uint64_t idle_us = argc > 3 ? strtoull(argv[3], NULL, 10) : 140;
    rounds = argc > 4 ? atoi(argv[4]) : 5000;
    delays = calloc((size_t)rounds, sizeof *delays);
    same_cpu = calloc((size_t)rounds, sizeof *same_cpu);
    wake_fd = eventfd(0, EFD_SEMAPHORE);  // one read a wake-up, even if two arrive before it
    if (getenv("PIN")) pin(0);
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    usleep(10000);
    for (int i = 0; i < rounds; i++) {
        loop_cpu = sched_getcpu();
        woken_at = now_ns();
        uint64_t one = 1;
        if (write(wake_fd, &one, sizeof one) != sizeof one) return 1;
        spin_us(busy_us);
        struct timespec idle = {0, (long)(idle_us * 1000)};
        nanosleep(&idle, NULL);
    }
    pthread_join(thread, NULL);
    int same = 0;
    for (int i = 0; i < rounds; i++) same += same_cpu[i];
    qsort(delays, (size_t)rounds, sizeof *delays, compare);
    printf("busy %llu us, work %llu us, idle %llu us%s: woken on the waker's CPU %.1f %%; wake to run p50 %.1f, "
           "p90 %.1f, p99 %.1f, max %.1f us\n",
           (unsigned long long)busy_us, (unsigned long long)work_us, (unsigned long long)idle_us,
           getenv("PIN") ? ", pinned apart" : "", 100.0 * same / rounds, delays[rounds / 2] / 1e3,
           delays[rounds * 9 / 10] / 1e3, delays[rounds * 99 / 100] / 1e3, delays[rounds - 1] / 1e3);
    return 0;
}
