/*
 * Editing workload peer: SQLite, in memory, with an R*Tree index, applying the edits that
 * `geosieve-bench edit --emit-data DIR` wrote and printing geosieve-bench's JSON lines with engine
 * "sqlite-rtree".
 *
 *   cc -O2 -o edit_sqlite edit_sqlite.c $(pkg-config --cflags --libs sqlite3)
 *   ./edit_sqlite DIR [ROUNDS]
 *
 * The table:  t(OBJECTID INTEGER PRIMARY KEY, POP INTEGER, NAME TEXT, CATEGORY TEXT, SCORE REAL,
 *             CREATED INTEGER, X REAL, Y REAL), loaded from DIR/edit_table.tsv (untimed), and
 *             t_index, an R*Tree (id, minx, maxx, miny, maxy) holding each point as a box of
 *             zero size: what a GeoPackage keeps beside its features.
 * edit.single_adds  each add of DIR/edit_adds.tsv is one transaction (BEGIN, INSERT into t,
 *             INSERT of its box into t_index, COMMIT), as GeoSieve commits each addFeatures call.
 *             One warm-up round, then ROUNDS rounds; before each, the previous round's adds are
 *             deleted (untimed), so that every round starts from the same table, as GeoSieve's
 *             rounds start from a fresh copy.
 * edit.batch  each batch of DIR/edit_batches.tsv is one transaction: its adds (with the object
 *             IDs GeoSieve gave them), its updates (POP and the point, in t and t_index) and its
 *             deletes (from t and t_index). Batch 0 is the warm-up; the others are timed.
 * Every update and delete must change one row (else the peer stops: the engines disagree).
 * result = rows after; pop_sum = sum(POP) after, to check against GeoSieve's lines.
 * Statements are prepared once and reused; times are wall clock (CLOCK_MONOTONIC).
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_NAME "edit_sqlite"
#include "peer.h"

static sqlite3 *db;

/* The lines of a tab-separated file, split in place: line i's fields are fields[i * width ...]. */
typedef struct {
    char *text;
    char **fields;
    size_t lines;
    int width;
} Table;

static Table read_tsv(const char *dir, const char *name, int width) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    Table t = {malloc((size_t)size + 1), NULL, 0, width};
    if (!t.text || fread(t.text, 1, (size_t)size, f) != (size_t)size) die("cannot read %s", path);
    fclose(f);
    t.text[size] = 0;
    size_t count = 0;
    for (long i = 0; i < size; i++) count += t.text[i] == '\n';
    t.fields = malloc(sizeof(char *) * (count * (size_t)width + 1));
    if (!t.fields) die("out of memory");
    char *p = t.text;
    for (size_t line = 0; line < count; line++) {
        for (int k = 0; k < width; k++) {
            t.fields[line * (size_t)width + (size_t)k] = p;
            while (*p && *p != '\t' && *p != '\n') p++;
            char end = *p;
            if ((k < width - 1 && end != '\t') || (k == width - 1 && end != '\n'))
                die("%s line %zu: expected %d tab-separated fields", name, line + 1, width);
            *p++ = 0;
        }
    }
    t.lines = count;
    return t;
}

static const char *field(const Table *t, size_t line, int k) { return t->fields[line * (size_t)t->width + (size_t)k]; }
static int is_null(const char *s) { return strcmp(s, "\\N") == 0; }

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) die("%s: %s", sql, sqlite3_errmsg(db));
    return s;
}

static void step(sqlite3_stmt *s) {
    if (sqlite3_step(s) != SQLITE_DONE) die("%s: %s", sqlite3_sql(s), sqlite3_errmsg(db));
    sqlite3_reset(s);
}

static void exec(const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) die("%s: %s", sql, error);
}

static int64_t query_int(const char *sql) {
    sqlite3_stmt *s = prepare(sql);
    if (sqlite3_step(s) != SQLITE_ROW) die("%s: %s", sql, sqlite3_errmsg(db));
    int64_t value = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return value;
}

static void bind_int(sqlite3_stmt *s, int i, const char *v) {
    if (is_null(v)) sqlite3_bind_null(s, i); else sqlite3_bind_int64(s, i, strtoll(v, NULL, 10));
}
static void bind_double(sqlite3_stmt *s, int i, const char *v) {
    if (is_null(v)) sqlite3_bind_null(s, i); else sqlite3_bind_double(s, i, strtod(v, NULL));
}
static void bind_text(sqlite3_stmt *s, int i, const char *v) {
    if (is_null(v)) sqlite3_bind_null(s, i); else sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

static sqlite3_stmt *begin, *commit, *insert, *insert_index, *update, *update_index, *delete, *delete_index;

/* Inserts a feature: id (NULL: SQLite's next), then POP NAME CATEGORY SCORE CREATED X Y. */
static void add(const char *id, const char *const *values) {
    bind_int(insert, 1, id);
    bind_int(insert, 2, values[0]);
    bind_text(insert, 3, values[1]);
    bind_text(insert, 4, values[2]);
    bind_double(insert, 5, values[3]);
    bind_int(insert, 6, values[4]);
    bind_double(insert, 7, values[5]);
    bind_double(insert, 8, values[6]);
    step(insert);
    double x = strtod(values[5], NULL), y = strtod(values[6], NULL);
    sqlite3_bind_int64(insert_index, 1, sqlite3_last_insert_rowid(db));
    sqlite3_bind_double(insert_index, 2, x);
    sqlite3_bind_double(insert_index, 3, x);
    sqlite3_bind_double(insert_index, 4, y);
    sqlite3_bind_double(insert_index, 5, y);
    step(insert_index);
}

static void step_one_row(sqlite3_stmt *s, const char *id) {
    step(s);
    if (sqlite3_changes(db) != 1) die("%s changed %d rows for object ID %s", sqlite3_sql(s), sqlite3_changes(db), id);
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void emit(const char *workload, size_t rows, uint64_t *samples, int count, const char *extra) {
    qsort(samples, (size_t)count, sizeof *samples, compare_u64);
    double median = count % 2 ? (double)samples[count / 2] : ((double)samples[count / 2 - 1] + (double)samples[count / 2]) / 2;
    printf("{\"workload\":\"%s\",\"engine\":\"sqlite-rtree\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,"
           "\"rows\":%lld,\"result\":%lld,\"pop_sum\":%lld%s}\n",
           workload, median / 1e6, (double)samples[0] / 1e6, (double)samples[count - 1] / 1e6, (long long)rows,
           (long long)query_int("SELECT count(*) FROM t"),
           (long long)query_int("SELECT coalesce(sum(POP), 0) FROM t"), extra);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage: edit_sqlite DIR [ROUNDS]");
    const char *dir = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1) die("ROUNDS must be at least 1");
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) die("cannot open an in-memory database");
    fprintf(stderr, "edit_sqlite: SQLite %s\n", sqlite3_libversion());
    exec("CREATE TABLE t(OBJECTID INTEGER PRIMARY KEY, POP INTEGER, NAME TEXT, CATEGORY TEXT, SCORE REAL, "
         "CREATED INTEGER, X REAL, Y REAL)");
    exec("CREATE VIRTUAL TABLE t_index USING rtree(id, minx, maxx, miny, maxy)");
    begin = prepare("BEGIN");
    commit = prepare("COMMIT");
    insert = prepare("INSERT INTO t(OBJECTID, POP, NAME, CATEGORY, SCORE, CREATED, X, Y) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert_index = prepare("INSERT INTO t_index VALUES (?, ?, ?, ?, ?)");
    update = prepare("UPDATE t SET POP = ?, X = ?, Y = ? WHERE OBJECTID = ?");
    update_index = prepare("UPDATE t_index SET minx = ?, maxx = ?, miny = ?, maxy = ? WHERE id = ?");
    delete = prepare("DELETE FROM t WHERE OBJECTID = ?");
    delete_index = prepare("DELETE FROM t_index WHERE id = ?");

    Table table = read_tsv(dir, "edit_table.tsv", 8);
    step(begin);
    for (size_t i = 0; i < table.lines; i++) {
        const char *values[7];
        for (int k = 0; k < 7; k++) values[k] = field(&table, i, k + 1);
        add(field(&table, i, 0), values);
    }
    step(commit);
    int64_t base_max = query_int("SELECT max(OBJECTID) FROM t");
    fprintf(stderr, "edit_sqlite: loaded %zu rows\n", table.lines);

    Table adds = read_tsv(dir, "edit_adds.tsv", 7);
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t)(rounds + 1));
    if (!samples) die("out of memory");
    char sql[256];
    for (int round = 0; round <= rounds; round++) {
        snprintf(sql, sizeof sql, "DELETE FROM t WHERE OBJECTID > %lld", (long long)base_max);
        exec(sql);
        snprintf(sql, sizeof sql, "DELETE FROM t_index WHERE id > %lld", (long long)base_max);
        exec(sql);
        uint64_t start = now_ns();
        for (size_t i = 0; i < adds.lines; i++) {
            step(begin);
            const char *values[7];
            for (int k = 0; k < 7; k++) values[k] = field(&adds, i, k);
            add("\\N", values);
            step(commit);
        }
        uint64_t elapsed = now_ns() - start;
        if (round > 0) samples[round - 1] = elapsed;
    }
    qsort(samples, (size_t)rounds, sizeof *samples, compare_u64);
    double median_s = (rounds % 2 ? (double)samples[rounds / 2] : ((double)samples[rounds / 2 - 1] + (double)samples[rounds / 2]) / 2) / 1e9;
    char extra[64];
    snprintf(extra, sizeof extra, ",\"adds_per_s\":%lld", (long long)((double)adds.lines / median_s));
    emit("edit.single_adds", table.lines, samples, rounds, extra);
    snprintf(sql, sizeof sql, "DELETE FROM t WHERE OBJECTID > %lld", (long long)base_max);
    exec(sql);
    snprintf(sql, sizeof sql, "DELETE FROM t_index WHERE id > %lld", (long long)base_max);
    exec(sql);

    Table batches = read_tsv(dir, "edit_batches.tsv", 10);
    int timed = 0;
    uint64_t *batch_samples = malloc(sizeof(uint64_t) * (batches.lines + 1));
    if (!batch_samples) die("out of memory");
    size_t i = 0;
    while (i < batches.lines) {
        const char *batch = field(&batches, i, 0);
        uint64_t start = now_ns();
        step(begin);
        for (; i < batches.lines && strcmp(field(&batches, i, 0), batch) == 0; i++) {
            const char *op = field(&batches, i, 1), *id = field(&batches, i, 2);
            if (op[0] == 'A') {
                const char *values[7];
                for (int k = 0; k < 7; k++) values[k] = field(&batches, i, k + 3);
                add(id, values);
            } else if (op[0] == 'U') {
                const char *x = field(&batches, i, 8), *y = field(&batches, i, 9);
                bind_int(update, 1, field(&batches, i, 3));
                bind_double(update, 2, x);
                bind_double(update, 3, y);
                bind_int(update, 4, id);
                step_one_row(update, id);
                bind_double(update_index, 1, x);
                bind_double(update_index, 2, x);
                bind_double(update_index, 3, y);
                bind_double(update_index, 4, y);
                bind_int(update_index, 5, id);
                step_one_row(update_index, id);
            } else if (op[0] == 'D') {
                bind_int(delete, 1, id);
                step_one_row(delete, id);
                bind_int(delete_index, 1, id);
                step_one_row(delete_index, id);
            } else {
                die("edit_batches.tsv line %zu: unknown operation %s", i + 1, op);
            }
        }
        step(commit);
        uint64_t elapsed = now_ns() - start;
        if (strcmp(batch, "0") != 0) batch_samples[timed++] = elapsed;
    }
    if (timed == 0) die("edit_batches.tsv holds no timed batch (batch 0 is the warm-up)");
    emit("edit.batch", table.lines, batch_samples, timed, "");
    sqlite3_close(db);
    return 0;
}
