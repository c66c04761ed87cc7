/*
 * What the C peers share: stopping with a message, and a monotonic clock. Each peer defines
 * PEER_NAME (the prefix of its messages) before including this file.
 */
#ifndef PEER_H
#define PEER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Prints "PEER_NAME: " and the message on standard error, and exits with status 1. */
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", PEER_NAME);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* Nanoseconds of CLOCK_MONOTONIC. */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
