/*
 * Workload w3 peer: the raw GEOS C-API loop with the query polygon prepared, over the inputs
 * written by `geosieve-bench spatial --emit-data DIR`, printing the same JSON lines with engine
 * "geos-prepared".
 *
 *   cc -O2 -o w3_geos w3_geos.c $(pkg-config --cflags --libs geos)
 *   ./w3_geos DIR [ROUNDS]
 *
 * Inputs: DIR/points_uniform.f64 (x, y float64 pairs), DIR/star.wkt, DIR/walk.wkt (one polygon
 * each), DIR/polygons.wkt (one polygon a line).
 *
 * w3.star_points, w3.walk_points  the query polygon is prepared once (GEOSPrepare_r plus one
 *     first call, which builds GEOS's prepared index) before the timer; then per point: envelope
 *     rejection against the query polygon's envelope, else GEOSGeom_createPointFromXY_r,
 *     GEOSPreparedIntersects_r, GEOSGeom_destroy_r.
 * w3.star_polygons  the small polygons are read and their envelopes computed before the timer
 *     (they are the peer's input, as the feature table's envelopes are GeoSieve's); per polygon:
 *     envelope rejection, else GEOSPreparedIntersects_r.
 * Each measurement: one warm-up pass, then ROUNDS timed passes (median, min, max); result = the
 * number of features that intersect the query polygon.
 */
#include <geos_c.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_NAME "w3_geos"
#include "peer.h"

static GEOSContextHandle_t ctx;

static void geos_message(const char *message, void *userdata) {
    (void)userdata;
    fprintf(stderr, "w3_geos: GEOS: %s\n", message);
}

static FILE *open_input(const char *dir, const char *name, const char *mode) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) die("cannot open %s", path);
    return f;
}

/* Reads DIR/NAME as float64 values (little-endian, as this machine); *count = values read. */
static double *read_f64(const char *dir, const char *name, size_t *count) {
    FILE *f = open_input(dir, name, "rb");
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes < 0 || bytes % 16 != 0) die("%s: size %ld is not a multiple of 16", name, bytes);
    double *values = malloc((size_t)bytes + 16);
    if (!values) die("out of memory");
    if (fread(values, 1, (size_t)bytes, f) != (size_t)bytes) die("cannot read %s", name);
    fclose(f);
    *count = (size_t)bytes / 8;
    return values;
}

/* Reads DIR/NAME, one WKT geometry a line; *count = geometries read. */
static GEOSGeometry **read_wkt(const char *dir, const char *name, size_t *count) {
    FILE *f = open_input(dir, name, "r");
    GEOSWKTReader *reader = GEOSWKTReader_create_r(ctx);
    size_t n = 0, cap = 1024;
    GEOSGeometry **geoms = malloc(cap * sizeof *geoms);
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, f)) > 0) {
        if (line[len - 1] == '\n') line[len - 1] = '\0';
        if (line[0] == '\0') continue;
        GEOSGeometry *g = GEOSWKTReader_read_r(ctx, reader, line);
        if (!g) die("%s line %zu: not WKT GEOS reads", name, n + 1);
        if (n == cap) {
            cap *= 2;
            geoms = realloc(geoms, cap * sizeof *geoms);
            if (!geoms) die("out of memory");
        }
        geoms[n++] = g;
    }
    free(line);
    fclose(f);
    GEOSWKTReader_destroy_r(ctx, reader);
    if (n == 0) die("%s holds no geometry", name);
    *count = n;
    return geoms;
}

typedef struct {
    double xmin, ymin, xmax, ymax;
} Box;

static Box envelope(const GEOSGeometry *g) {
    Box b;
    if (!GEOSGeom_getXMin_r(ctx, g, &b.xmin) || !GEOSGeom_getYMin_r(ctx, g, &b.ymin) ||
        !GEOSGeom_getXMax_r(ctx, g, &b.xmax) || !GEOSGeom_getYMax_r(ctx, g, &b.ymax))
        die("cannot read an envelope");
    return b;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void print_line(const char *workload, uint64_t *samples, int rounds, size_t features, size_t result) {
    qsort(samples, (size_t)rounds, sizeof *samples, cmp_u64);
    double median = rounds % 2 ? (double)samples[rounds / 2]
                               : ((double)samples[rounds / 2 - 1] + (double)samples[rounds / 2]) / 2;
    printf("{\"workload\":\"%s\",\"engine\":\"geos-prepared\",\"median_ms\":%.3f,\"min_ms\":%.3f,"
           "\"max_ms\":%.3f,\"features\":%zu,\"result\":%zu}\n",
           workload, median / 1e6, (double)samples[0] / 1e6, (double)samples[rounds - 1] / 1e6, features, result);
    fflush(stdout);
}

/* One pass over the points: the count of points that intersect the prepared query. */
static size_t points_pass(const GEOSPreparedGeometry *pq, Box q, const double *xy, size_t n) {
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        if (x < q.xmin || x > q.xmax || y < q.ymin || y > q.ymax) continue;
        GEOSGeometry *p = GEOSGeom_createPointFromXY_r(ctx, x, y);
        char r = GEOSPreparedIntersects_r(ctx, pq, p);
        if (r == 2) die("GEOSPreparedIntersects_r failed on point %zu", i);
        hits += r == 1;
        GEOSGeom_destroy_r(ctx, p);
    }
    return hits;
}

/* One pass over the polygons: the count of polygons that intersect the prepared query. */
static size_t polygons_pass(const GEOSPreparedGeometry *pq, Box q, GEOSGeometry **polys, const Box *boxes, size_t n) {
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const Box *b = &boxes[i];
        if (b->xmax < q.xmin || b->xmin > q.xmax || b->ymax < q.ymin || b->ymin > q.ymax) continue;
        char r = GEOSPreparedIntersects_r(ctx, pq, polys[i]);
        if (r == 2) die("GEOSPreparedIntersects_r failed on polygon %zu", i);
        hits += r == 1;
    }
    return hits;
}

/* Reads DIR/NAME's single query polygon, prepares it and makes the first prepared call. */
static GEOSGeometry *read_query(const char *dir, const char *name, const GEOSPreparedGeometry **prepared, Box *box) {
    size_t count;
    GEOSGeometry **geoms = read_wkt(dir, name, &count);
    if (count != 1) die("%s holds %zu geometries, expected 1", name, count);
    GEOSGeometry *q = geoms[0];
    free(geoms);
    if (GEOSisValid_r(ctx, q) != 1) die("%s is not a valid geometry", name);
    *prepared = GEOSPrepare_r(ctx, q);
    if (!*prepared) die("cannot prepare %s", name);
    *box = envelope(q);
    GEOSGeometry *probe = GEOSGeom_createPointFromXY_r(ctx, box->xmin, box->ymin);
    GEOSPreparedIntersects_r(ctx, *prepared, probe);
    GEOSGeom_destroy_r(ctx, probe);
    return q;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) die("usage: w3_geos DIR [ROUNDS]");
    const char *dir = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1) die("ROUNDS must be at least 1");
    ctx = GEOS_init_r();
    GEOSContext_setNoticeMessageHandler_r(ctx, geos_message, NULL);
    GEOSContext_setErrorMessageHandler_r(ctx, geos_message, NULL);

    size_t values;
    double *xy = read_f64(dir, "points_uniform.f64", &values);
    size_t npoints = values / 2;
    size_t npolys;
    GEOSGeometry **polys = read_wkt(dir, "polygons.wkt", &npolys);
    Box *boxes = malloc(npolys * sizeof *boxes);
    if (!boxes) die("out of memory");
    for (size_t i = 0; i < npolys; i++) boxes[i] = envelope(polys[i]);

    uint64_t *samples = malloc((size_t)rounds * sizeof *samples);
    if (!samples) die("out of memory");
    const char *queries[2] = {"star", "walk"};
    for (int qi = 0; qi < 2; qi++) {
        char file[32], workload[64];
        snprintf(file, sizeof file, "%s.wkt", queries[qi]);
        const GEOSPreparedGeometry *pq;
        Box qbox;
        GEOSGeometry *q = read_query(dir, file, &pq, &qbox);

        snprintf(workload, sizeof workload, "w3.%s_points", queries[qi]);
        size_t answer = points_pass(pq, qbox, xy, npoints);
        for (int r = 0; r < rounds; r++) {
            uint64_t t0 = now_ns();
            size_t hits = points_pass(pq, qbox, xy, npoints);
            samples[r] = now_ns() - t0;
            if (hits != answer) die("%s: a pass counted %zu, the warm-up %zu", workload, hits, answer);
        }
        print_line(workload, samples, rounds, npoints, answer);

        if (qi == 0) {
            snprintf(workload, sizeof workload, "w3.%s_polygons", queries[qi]);
            answer = polygons_pass(pq, qbox, polys, boxes, npolys);
            for (int r = 0; r < rounds; r++) {
                uint64_t t0 = now_ns();
                size_t hits = polygons_pass(pq, qbox, polys, boxes, npolys);
                samples[r] = now_ns() - t0;
                if (hits != answer) die("%s: a pass counted %zu, the warm-up %zu", workload, hits, answer);
            }
            print_line(workload, samples, rounds, npolys, answer);
        }
        GEOSPreparedGeom_destroy_r(ctx, pq);
        GEOSGeom_destroy_r(ctx, q);
    }

    for (size_t i = 0; i < npolys; i++) GEOSGeom_destroy_r(ctx, polys[i]);
    free(polys);
    free(boxes);
    free(samples);
    free(xy);
    GEOS_finish_r(ctx);
    return 0;
}
