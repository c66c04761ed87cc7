/*
 * Workload w2 peer: the GEOS C API's STRtree over the inputs written by
 * `geosieve-bench spatial --emit-data DIR`, printing the same JSON lines with engine "geos-strtree".
 *
 *   cc -O2 -o w2_strtree w2_strtree.c $(pkg-config --cflags --libs geos)
 *   ./w2_strtree DIR [ROUNDS]
 *
 * build     GEOSSTRtree_create_r(node capacity 10), one GEOSSTRtree_insert_r per point, and a first
 *           query (GEOS builds the tree on its first query; 3.11 has no explicit build call).
 *           The point geometries are created before the timer (they are the peer's input format).
 * windows   per window: GEOSGeom_createRectangle_r + GEOSSTRtree_query_r; the tree's envelope check
 *           is exact for points, so the callback only appends each candidate id to a reused
 *           buffer (as the project's anchor benchmark does; re-reading the point's coordinates in
 *           the callback would add a cache miss per hit and slow the peer down ~5x).
 * identify  per click: the tolerance square as above; the callback keeps points within the
 *           tolerance (a circle: dx^2 + dy^2 <= tol^2).
 * Each measurement: one warm-up pass, then ROUNDS timed passes (median, min, max); identify also
 * reports the 99th percentile of the per-click latency over ROUNDS passes timed click by click.
 */
#include <geos_c.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_NAME "w2_strtree"
#include "peer.h"

static GEOSContextHandle_t ctx;

/* Reads DIR/NAME as float64 values (little-endian, as this machine); *count = values read. */
static double *read_f64(const char *dir, const char *name, size_t *count) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes < 0 || bytes % 8 != 0) die("%s: size %ld is not a multiple of 8", path, bytes);
    double *values = malloc((size_t)bytes + 8);
    if (!values) die("out of memory");
    if (fread(values, 1, (size_t)bytes, f) != (size_t)bytes) die("cannot read %s", path);
    fclose(f);
    *count = (size_t)bytes / 8;
    return values;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double ms(uint64_t ns) { return (double)ns / 1e6; }

/* Prints one JSON line: median/min/max of the samples (sorted here). */
static void emit(const char *workload, uint64_t *samples, int rounds, const char *size_name, size_t size,
                 size_t result, const char *extra) {
    qsort(samples, (size_t)rounds, sizeof *samples, cmp_u64);
    double median = rounds % 2 ? ms(samples[rounds / 2]) : (ms(samples[rounds / 2 - 1]) + ms(samples[rounds / 2])) / 2;
    printf("{\"workload\":\"%s\",\"engine\":\"geos-strtree\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,"
           "\"%s\":%zu,\"result\":%zu%s}\n",
           workload, median, ms(samples[0]), ms(samples[rounds - 1]), size_name, size, result, extra ? extra : "");
    fflush(stdout);
}

/* ---------------------------------------------------------------- query state and callbacks */
typedef struct {
    const double *xy;               /* the point coordinates, id = index */
    double cx, cy, tol2;            /* click (circle check) */
    size_t n, cap;
    uint32_t *ids;
} Query;

static void push(Query *q, uint32_t id) {
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 1024;
        q->ids = realloc(q->ids, q->cap * sizeof *q->ids);
        if (!q->ids) die("out of memory");
    }
    q->ids[q->n++] = id;
}

static void window_hit(void *item, void *userdata) {
    push(userdata, (uint32_t)(uintptr_t)item);
}

static void click_hit(void *item, void *userdata) {
    Query *q = userdata;
    uint32_t id = (uint32_t)(uintptr_t)item;
    double dx = q->xy[2 * (size_t)id] - q->cx, dy = q->xy[2 * (size_t)id + 1] - q->cy;
    if (dx * dx + dy * dy <= q->tol2) push(q, id);
}

static void ignore(void *item, void *userdata) { (void)item; (void)userdata; }

static GEOSSTRtree *build_tree(GEOSGeometry **points, size_t n) {
    GEOSSTRtree *tree = GEOSSTRtree_create_r(ctx, 10);
    if (!tree) die("GEOSSTRtree_create_r failed");
    for (size_t i = 0; i < n; i++) GEOSSTRtree_insert_r(ctx, tree, points[i], (void *)(uintptr_t)i);
    GEOSGeometry *probe = GEOSGeom_createRectangle_r(ctx, -2, -2, -1, -1);
    GEOSSTRtree_query_r(ctx, tree, probe, ignore, NULL);
    GEOSGeom_destroy_r(ctx, probe);
    return tree;
}

static size_t run_windows(GEOSSTRtree *tree, Query *q, const double *win, size_t count) {
    size_t total = 0;
    for (size_t k = 0; k < count; k++) {
        const double *w = win + 4 * k;
        q->n = 0;
        GEOSGeometry *rect = GEOSGeom_createRectangle_r(ctx, w[0], w[1], w[2], w[3]);
        GEOSSTRtree_query_r(ctx, tree, rect, window_hit, q);
        GEOSGeom_destroy_r(ctx, rect);
        total += q->n;
    }
    return total;
}

static size_t one_click(GEOSSTRtree *tree, Query *q, const double *c) {
    q->n = 0;
    q->cx = c[0]; q->cy = c[1]; q->tol2 = c[2] * c[2];
    GEOSGeometry *rect = GEOSGeom_createRectangle_r(ctx, c[0] - c[2], c[1] - c[2], c[0] + c[2], c[1] + c[2]);
    GEOSSTRtree_query_r(ctx, tree, rect, click_hit, q);
    GEOSGeom_destroy_r(ctx, rect);
    return q->n;
}

static size_t run_clicks(GEOSSTRtree *tree, Query *q, const double *clicks, size_t count) {
    size_t total = 0;
    for (size_t k = 0; k < count; k++) total += one_click(tree, q, clicks + 3 * k);
    return total;
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage: w2_strtree DIR [ROUNDS]");
    const char *dir = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > 1000) die("ROUNDS must be between 1 and 1000");
    ctx = GEOS_init_r();

    size_t n_small, n_large, n_clicks;
    double *small = read_f64(dir, "windows_small.f64", &n_small); n_small /= 4;
    double *large = read_f64(dir, "windows_large.f64", &n_large); n_large /= 4;
    double *clicks = read_f64(dir, "identify.f64", &n_clicks); n_clicks /= 3;
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)rounds);
    uint64_t *latencies = malloc(sizeof(uint64_t) * n_clicks * (size_t)rounds);
    if (!samples || !latencies) die("out of memory");

    const char *sets[2] = {"uniform", "clustered"};
    for (int s = 0; s < 2; s++) {
        char file[64], name[96];
        size_t n;
        snprintf(file, sizeof file, "points_%s.f64", sets[s]);
        double *xy = read_f64(dir, file, &n); n /= 2;
        GEOSGeometry **points = malloc(n * sizeof *points);
        if (!points) die("out of memory");
        for (size_t i = 0; i < n; i++) points[i] = GEOSGeom_createPointFromXY_r(ctx, xy[2 * i], xy[2 * i + 1]);

        /* build: one warm-up, then timed builds; the last tree is queried */
        GEOSSTRtree *tree = build_tree(points, n);
        for (int r = 0; r < rounds; r++) {
            GEOSSTRtree_destroy_r(ctx, tree);
            uint64_t t0 = now_ns();
            tree = build_tree(points, n);
            samples[r] = now_ns() - t0;
        }
        snprintf(name, sizeof name, "w2.build.%s", sets[s]);
        emit(name, samples, rounds, "features", n, n, NULL);

        Query q = {.xy = xy};
        for (int w = 0; w < 2; w++) {
            const double *win = w ? large : small;
            size_t count = w ? n_large : n_small;
            size_t answer = run_windows(tree, &q, win, count);
            for (int r = 0; r < rounds; r++) {
                uint64_t t0 = now_ns();
                size_t got = run_windows(tree, &q, win, count);
                samples[r] = now_ns() - t0;
                if (got != answer) die("%s windows: %zu hits, then %zu", sets[s], answer, got);
            }
            snprintf(name, sizeof name, "w2.window_%s.%s", w ? "large" : "small", sets[s]);
            emit(name, samples, rounds, "queries", count, answer, NULL);
        }

        size_t answer = run_clicks(tree, &q, clicks, n_clicks);
        for (int r = 0; r < rounds; r++) {
            uint64_t t0 = now_ns();
            size_t got = run_clicks(tree, &q, clicks, n_clicks);
            samples[r] = now_ns() - t0;
            if (got != answer) die("%s identify: %zu hits, then %zu", sets[s], answer, got);
        }
        size_t m = 0;
        for (int r = 0; r < rounds; r++) {
            for (size_t k = 0; k < n_clicks; k++) {
                uint64_t t0 = now_ns();
                one_click(tree, &q, clicks + 3 * k);
                latencies[m++] = now_ns() - t0;
            }
        }
        qsort(latencies, m, sizeof *latencies, cmp_u64);
        size_t rank = (size_t)((double)m * 0.99 + 0.999999);
        if (rank < 1) rank = 1;
        char extra[64];
        snprintf(extra, sizeof extra, ",\"p99_us\":%.2f", (double)latencies[rank - 1] / 1000.0);
        snprintf(name, sizeof name, "w2.identify.%s", sets[s]);
        emit(name, samples, rounds, "queries", n_clicks, answer, extra);

        free(q.ids);
        GEOSSTRtree_destroy_r(ctx, tree);
        for (size_t i = 0; i < n; i++) GEOSGeom_destroy_r(ctx, points[i]);
        free(points);
        free(xy);
    }
    free(samples); free(latencies); free(small); free(large); free(clicks);
    GEOS_finish_r(ctx);
    return 0;
}
