/* bench/bench_db.c: the match store's speed.
 *   - events stored per second with durability on (each append committed
 *     and synced, synchronous=FULL in WAL mode), on the disk of the
 *     build directory (a tmpfs would flatter the figure);
 *   - time to load a 500-move match for replay: target under 20 ms.
 * Events carry realistic payloads: a qwirkle move of 1-3 cubes and the
 * whole position after it (up to 90 cubes, ~4 KB of JSON).  The file is
 * made beside the program and removed at the end. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

#define LOAD_TARGET_MS 20.0
#define NMOVES 500

static const char *const colors[] = {"red", "orange", "yellow", "green", "blue", "purple"};
static const char *const shapes[] = {"circle", "square", "diamond", "clover", "star4", "star8"};

/* The position after move i: min(i + 1, 90) cubes. */
static void position_json(char *buf, size_t cap, int i)
{
    int n = i + 1 < 90 ? i + 1 : 90;
    size_t len = (size_t)snprintf(buf, cap, "{\"game\":\"qwirkle\",\"pieces\":[");
    for (int k = 0; k < n && len + 80 < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len,
                                "%s{\"x\":%d,\"y\":%d,\"color\":\"%s\",\"shape\":\"%s\"}",
                                k ? "," : "", k % 13 - 6, k / 13, colors[k % 6],
                                shapes[(k / 6) % 6]);
    snprintf(buf + len, cap - len, "]}");
}

static int fill_match(db *d, int64_t *match, int n, double *secs, base_err *err)
{
    const char *players[] = {"Ann", "Bob"};
    static char pos[16384];
    char move[256], scores[32];
    double t0;
    int rc;
    if ((rc = db_match_new(d, "qwirkle", "{}", NULL, players, 2, NULL, match, err)) != 0)
        return rc;
    t0 = base_now();
    for (int i = 0; i < n; i++) {
        db_event ev = {0};
        snprintf(move, sizeof move,
                 "{\"type\":\"place\",\"pieces\":[{\"x\":%d,\"y\":0,\"color\":\"%s\",\"shape\":"
                 "\"%s\"}]}",
                 i, colors[i % 6], shapes[i % 6]);
        snprintf(scores, sizeof scores, "[%d,%d]", i * 3, i * 2);
        position_json(pos, sizeof pos, i);
        ev.seat = i % 2;
        ev.move = move;
        ev.legal = i % 10 != 9;
        ev.rule = ev.legal ? NULL : "line-duplicate";
        ev.reason = ev.legal ? NULL : "the row would hold two red circles";
        ev.points = ev.legal ? 3 : 0;
        ev.scores = scores;
        ev.position = pos;
        ev.source = DB_SRC_CAMERA;
        if ((rc = db_event_append(d, *match, &ev, NULL, err)) != 0)
            return rc;
    }
    *secs = base_now() - t0;
    return 0;
}

int main(int argc, char **argv)
{
    char path[4096], file[4200], aux[4300];
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    db *d = NULL;
    base_err err;
    int64_t match;
    double secs, best = 1e9, worst = 0, sum = 0;
    const int reps = 20;
    int fd, ok;

    /* Beside the program (the build directory): a real disk, and nothing
     * left in the source tree. */
    snprintf(path, sizeof path, "%.*sbench-db-XXXXXX", slash ? (int)(slash - argv[0] + 1) : 0,
             slash ? argv[0] : "");
    if ((fd = mkstemp(path)) < 0) {
        perror("bench_db: mkstemp");
        return 1;
    }
    close(fd);
    unlink(path);
    snprintf(file, sizeof file, "%s.db", path);
    if (db_open(file, DB_OPEN_CREATE, &err, &d) != 0) {
        fprintf(stderr, "bench_db: %s\n", err.msg);
        return 1;
    }
    if (fill_match(d, &match, NMOVES, &secs, &err) != 0) {
        fprintf(stderr, "bench_db: %s\n", err.msg);
        db_close(d);
        return 1;
    }
    printf("db append (durable, synchronous=FULL, WAL): %d events in %.3f s = %.0f events/s "
           "(%.2f ms each; a referee needs a few per minute)\n",
           NMOVES, secs, NMOVES / secs, 1000.0 * secs / NMOVES);
    db_close(d);

    /* Load with a fresh reader, as a replay would. */
    if (db_open(file, DB_OPEN_READONLY, &err, &d) != 0) {
        fprintf(stderr, "bench_db: %s\n", err.msg);
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        db_match *m;
        double t0 = base_now(), ms;
        if (db_match_load(d, match, &m, &err) != 0 || m->nevents != NMOVES) {
            fprintf(stderr, "bench_db: load failed: %s\n", err.msg);
            db_close(d);
            return 1;
        }
        ms = 1000.0 * (base_now() - t0);
        db_match_free(m);
        best = ms < best ? ms : best;
        worst = ms > worst ? ms : worst;
        sum += ms;
    }
    db_close(d);
    ok = worst < LOAD_TARGET_MS;
    printf("db load of a %d-move match: mean %.2f ms, best %.2f, worst %.2f over %d loads "
           "(target < %.0f ms) %s\n",
           NMOVES, sum / reps, best, worst, reps, LOAD_TARGET_MS, ok ? "PASS" : "MISS");
    unlink(file);
    snprintf(aux, sizeof aux, "%s-wal", file);
    unlink(aux);
    snprintf(aux, sizeof aux, "%s-shm", file);
    unlink(aux);
    return ok ? 0 : 1;
}
