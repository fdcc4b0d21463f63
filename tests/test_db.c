/* tests/test_db.c: the match store: schema and migrations, refusing files
 * it must not touch, events and their durability under SIGKILL, a reader
 * beside a writer, corrections, snapshots, resume, stats and profiles. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"
#include "harness.h"

typedef struct fixture {
    char *dir;
    char *path;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = th_tmpdir();
    f->path = th_path(f->dir, "t.db");
    *state = f;
    return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    th_rmtree(f->dir);
    free(f->dir);
    free(f->path);
    free(f);
    return 0;
}

/* ---- helpers ---- */

static db *open_rw(const char *path)
{
    db *d = NULL;
    base_err err;
    int rc = db_open(path, DB_OPEN_CREATE, &err, &d);
    if (rc != 0)
        fail_msg("db_open(%s): %s", path, err.msg);
    return d;
}

static int64_t new_match(db *d, const char *game, const char *a, const char *b)
{
    const char *players[] = {a, b};
    int64_t id = 0;
    base_err err;
    int rc = db_match_new(d, game, "{}", NULL, players, 2, NULL, &id, &err);
    if (rc != 0)
        fail_msg("db_match_new: %s", err.msg);
    return id;
}

/* Appends a legal event for seat (seq-1)%2 with scores that grow, so that
 * a test can recompute what event seq must hold. */
static int append_nth(db *d, int64_t match, int seq, base_err *err)
{
    char move[128], scores[64];
    db_event ev = {0};
    int got = 0, rc;
    snprintf(move, sizeof move,
             "{\"type\":\"place\",\"pieces\":[{\"x\":%d,\"y\":0,\"color\":\"red\",\"shape\":"
             "\"circle\"}]}",
             seq);
    snprintf(scores, sizeof scores, "[%d,%d]", seq, 2 * seq);
    ev.seat = (seq - 1) % 2;
    ev.move = move;
    ev.legal = true;
    ev.points = seq;
    ev.scores = scores;
    ev.position = "{\"game\":\"qwirkle\",\"pieces\":[]}";
    ev.source = DB_SRC_CAMERA;
    rc = db_event_append(d, match, &ev, &got, err);
    if (rc == 0 && got != seq)
        return base_err_set(err, BASE_ESTATE, "expected seq %d, got %d", seq, got);
    return rc;
}

static int raw_int(const char *path, const char *sql)
{
    sqlite3 *c;
    sqlite3_stmt *st;
    int v = -1;
    assert_int_equal(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(c);
    return v;
}

static char *raw_text(const char *path, const char *sql)
{
    sqlite3 *c;
    sqlite3_stmt *st;
    char *v = NULL;
    assert_int_equal(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(c);
    return v;
}

static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *c;
    char *msg = NULL;
    assert_int_equal(sqlite3_open(path, &c), SQLITE_OK);
    if (sqlite3_exec(c, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("raw sql failed: %s", msg);
    sqlite3_close(c);
}

/* ---- the schema as it shipped, version by version (frozen copies: a
 * migration must keep working on the files these made) ---- */

#define NOW "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
static const char schema_v1[] =
    "PRAGMA application_id=1413701997;"
    "CREATE TABLE players( id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE CHECK(length(name) "
    "BETWEEN 1 AND 63), created TEXT NOT NULL DEFAULT " NOW ") STRICT;"
    "CREATE TABLE matches( id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL "
    "DEFAULT '{}' CHECK(json_valid(options)), header TEXT NOT NULL CHECK(json_valid(header)), "
    "started TEXT NOT NULL DEFAULT " NOW ", ended TEXT, state TEXT NOT NULL DEFAULT 'live' "
    "CHECK(state IN ('live','finished','abandoned'))) STRICT;"
    "CREATE TABLE seats( match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE, "
    "seat INTEGER NOT NULL CHECK(seat >= 0), player_id INTEGER NOT NULL REFERENCES "
    "players(id), score INTEGER, winner INTEGER NOT NULL DEFAULT 0 CHECK(winner IN (0,1)), "
    "PRIMARY KEY(match_id, seat)) STRICT;"
    "CREATE TABLE events( match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE, "
    "seq INTEGER NOT NULL CHECK(seq >= 1), seat INTEGER NOT NULL, move TEXT NOT NULL "
    "CHECK(json_valid(move)), legal INTEGER NOT NULL CHECK(legal IN (0,1)), rule TEXT, reason "
    "TEXT, points INTEGER NOT NULL DEFAULT 0, scores TEXT NOT NULL CHECK(json_valid(scores)), "
    "position TEXT CHECK(position IS NULL OR json_valid(position)), time TEXT NOT NULL DEFAULT " NOW
    ", source TEXT NOT NULL CHECK(source IN ('camera','typed','imported','correction')), "
    "PRIMARY KEY(match_id, seq), FOREIGN KEY(match_id, seat) REFERENCES seats(match_id, seat)) "
    "STRICT;"
    "CREATE TABLE snapshots( match_id INTEGER NOT NULL, seq INTEGER NOT NULL, jpeg BLOB NOT NULL, "
    "PRIMARY KEY(match_id, seq), FOREIGN KEY(match_id, seq) REFERENCES events(match_id, seq) ON "
    "DELETE CASCADE) STRICT;"
    "PRAGMA user_version=1;";

static const char schema_v2_step[] =
    "CREATE TABLE corrections( id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL, seq INTEGER "
    "NOT NULL, field TEXT NOT NULL, before TEXT, after TEXT, time TEXT NOT NULL DEFAULT " NOW
    ", note TEXT, FOREIGN KEY(match_id, seq) REFERENCES events(match_id, seq) ON DELETE "
    "CASCADE) STRICT;"
    "CREATE INDEX corrections_by_event ON corrections(match_id, seq);"
    "CREATE TABLE profiles( name TEXT PRIMARY KEY, kind TEXT NOT NULL, data TEXT NOT NULL "
    "CHECK(json_valid(data)), time TEXT NOT NULL DEFAULT " NOW ") STRICT;"
    "PRAGMA user_version=2;";

/* Data an old version held: one finished match with an illegal event and a
 * snapshot, one live match. */
static const char old_data[] =
    "INSERT INTO players(name) VALUES('Ann'),('Bob');"
    "INSERT INTO matches(id, game, header, started, ended, state) VALUES(1, 'qwirkle', "
    "'{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}', '2025-01-02T10:00:00.000Z', "
    "'2025-01-02T11:00:00.000Z', 'finished'),(2, 'qwirkle', "
    "'{\"game\":\"qwirkle\",\"players\":[\"Bob\",\"Ann\"]}', '2025-01-03T10:00:00.000Z', NULL, "
    "'live');"
    "INSERT INTO seats VALUES(1,0,1,7,1),(1,1,2,3,0),(2,0,2,NULL,0),(2,1,1,NULL,0);"
    "INSERT INTO events(match_id,seq,seat,move,legal,rule,reason,points,scores,source) VALUES"
    "(1,1,0,'{\"type\":\"place\"}',1,NULL,NULL,7,'[7,0]','camera'),"
    "(1,2,1,'{\"type\":\"place\"}',0,'line-duplicate','two red circles',0,'[7,0]','camera'),"
    "(1,3,1,'{\"type\":\"reroll\"}',1,NULL,NULL,0,'[7,0]','typed'),"
    "(2,1,0,'{\"type\":\"draw\"}',1,NULL,NULL,0,'[0,0]','camera');"
    "INSERT INTO snapshots VALUES(1,2,x'FFD8FFE000104A464946');";

static void check_old_data_kept(const char *path)
{
    db *d = open_rw(path);
    db_match *m = NULL;
    base_err err;
    void *jpeg;
    size_t len;
    db_event fix;

    assert_int_equal(db_schema_version(d), DB_SCHEMA_VERSION);
    assert_int_equal(db_match_load(d, 1, &m, &err), 0);
    assert_string_equal(m->info.game, "qwirkle");
    assert_int_equal(m->info.state, DB_FINISHED);
    assert_int_equal(m->info.nseats, 2);
    assert_string_equal(m->info.seats[0].name, "Ann");
    assert_true(m->info.seats[0].winner);
    assert_int_equal(m->info.seats[0].score, 7);
    assert_int_equal(m->nevents, 3);
    assert_false(m->events[1].legal);
    assert_string_equal(m->events[1].rule, "line-duplicate");
    assert_int_equal(m->events[2].source, DB_SRC_TYPED);
    /* v2's table works on the migrated file: correct event 2. */
    fix = m->events[1];
    fix.legal = true;
    fix.points = 2;
    fix.scores = "[7,2]";
    assert_int_equal(db_event_correct(d, 1, 2, &fix, "the camera misread", &err), 5);
    db_match_free(m);
    assert_int_equal(db_snapshot_get(d, 1, 2, &jpeg, &len, &err), 0);
    assert_int_equal(len, 10);
    free(jpeg);
    /* The live match of the old file can be resumed. */
    assert_int_equal(append_nth(d, 2, 2, &err), 0);
    db_close(d);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                                   "name = 'seats_by_player'"),
                     1);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM corrections"), 5);
    assert_int_equal(raw_int(path, "PRAGMA foreign_key_check"), -1); /* no rows */
}

static void test_migrate_from_v1(void **state)
{
    fixture *f = *state;
    raw_exec(f->path, schema_v1);
    raw_exec(f->path, old_data);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 1);
    check_old_data_kept(f->path);
}

static void test_migrate_from_v2(void **state)
{
    fixture *f = *state;
    raw_exec(f->path, schema_v1);
    raw_exec(f->path, schema_v2_step);
    raw_exec(f->path, old_data);
    raw_exec(f->path, "INSERT INTO profiles(name, kind, data) VALUES('hall', 'mat', '{\"w\":500}')");
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 2);
    check_old_data_kept(f->path);
    {
        db *d = open_rw(f->path);
        char *kind, *data;
        base_err err;
        assert_int_equal(db_profile_get(d, "hall", &kind, &data, &err), 0);
        assert_string_equal(kind, "mat");
        assert_string_equal(data, "{\"w\":500}");
        free(kind);
        free(data);
        db_close(d);
    }
}

/* Version 0: an empty file (what `touch tablecam.db` makes) and no file. */
static void test_migrate_from_v0(void **state)
{
    fixture *f = *state;
    db *d;
    base_err err;
    assert_int_equal(th_write_file(f->path, ""), 0);
    d = open_rw(f->path);
    assert_int_equal(db_schema_version(d), DB_SCHEMA_VERSION);
    db_close(d);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->path, "PRAGMA application_id"), DB_APPLICATION_ID);
    char *mode = raw_text(f->path, "PRAGMA journal_mode");
    assert_string_equal(mode, "wal");
    free(mode);
    /* Every table is STRICT. */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' "
                                      "AND sql NOT LIKE '%) STRICT'"),
                     0);
    /* No file and no CREATE: not found, and no file made. */
    char *other = th_path(f->dir, "none.db");
    assert_int_equal(db_open(other, 0, &err, &d), BASE_ENOTFOUND);
    assert_null(d);
    assert_non_null(strstr(err.msg, other));
    assert_int_equal(access(other, F_OK), -1);
    free(other);
}

static void assert_unchanged(const char *path, const char *before, size_t blen)
{
    size_t alen;
    char *after = th_read_file(path, &alen);
    assert_non_null(after);
    assert_int_equal(alen, blen);
    assert_memory_equal(after, before, blen);
    free(after);
}

static void test_newer_version_refused(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    size_t blen;
    char *before;
    new_match(d, "qwirkle", "Ann", "Bob");
    db_close(d);
    raw_exec(f->path, "PRAGMA user_version=99");
    before = th_read_file(f->path, &blen);
    for (int ro = 0; ro < 2; ro++) {
        assert_int_equal(db_open(f->path, ro ? DB_OPEN_READONLY : DB_OPEN_CREATE, &err, &d),
                         BASE_EVERSION);
        assert_null(d);
        assert_non_null(strstr(err.msg, f->path));
        assert_non_null(strstr(err.msg, "99"));
        assert_non_null(strstr(err.msg, "up to 3"));
    }
    assert_unchanged(f->path, before, blen);
    free(before);
}

static void test_text_file_refused(void **state)
{
    fixture *f = *state;
    const char *text = "Ann 12\nBob 9\nthese are my notes, not a database\n";
    size_t blen;
    db *d;
    base_err err;
    char *before;
    assert_int_equal(th_write_file(f->path, text), 0);
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_null(d);
    assert_non_null(strstr(err.msg, f->path));
    assert_non_null(strstr(err.msg, "not a SQLite file"));
    assert_int_equal(db_open(f->path, DB_OPEN_READONLY, &err, &d), BASE_EDB);
    assert_unchanged(f->path, before, blen);
    /* A text file longer than a SQLite header, too. */
    free(before);
    {
        char big[4096];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        assert_int_equal(th_write_file(f->path, big), 0);
    }
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_unchanged(f->path, before, blen);
    free(before);
    char *wal = th_path(f->dir, "t.db-wal");
    assert_int_equal(access(wal, F_OK), -1);
    free(wal);
}

static void write_bytes(const char *path, long off, const char *bytes, size_t n)
{
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, off, SEEK_SET), 0);
    assert_int_equal(fwrite(bytes, 1, n, fp), n);
    fclose(fp);
}

static void test_corrupt_file_refused(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    size_t blen;
    char *before, junk[4096];
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    int page;
    for (int i = 1; i <= 300; i++)
        assert_int_equal(append_nth(d, m, i, &err), 0);
    db_close(d);
    page = raw_int(f->path, "PRAGMA page_size");
    assert_true(raw_int(f->path, "PRAGMA page_count") > 10);

    /* A damaged leaf near the end (event rows): only the quick check sees
     * it, the header and the schema are fine. */
    {
        int last = raw_int(f->path, "PRAGMA page_count");
        memset(junk, 0x5a, sizeof junk);
        write_bytes(f->path, (long)page * (last - 2) + 8, junk, (size_t)page / 2);
    }
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_null(d);
    assert_non_null(strstr(err.msg, "corrupt"));
    assert_non_null(strstr(err.msg, "left unchanged"));
    print_message("refused: %s\n", err.msg);
    assert_unchanged(f->path, before, blen);
    free(before);

    /* A damaged page in the middle (pages 3..5 hold tables and indexes). */
    memset(junk, 0x5a, sizeof junk);
    write_bytes(f->path, (long)page * 2, junk, (size_t)page);
    write_bytes(f->path, (long)page * 4, junk, (size_t)page);
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_null(d);
    assert_non_null(strstr(err.msg, f->path));
    assert_non_null(strstr(err.msg, "corrupt"));
    assert_unchanged(f->path, before, blen);
    free(before);

    /* A damaged header (page size 3000). */
    write_bytes(f->path, 16, "\x0b\xb8", 2);
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_non_null(strstr(err.msg, "corrupt"));
    assert_int_equal(db_open(f->path, DB_OPEN_READONLY, &err, &d), BASE_EDB);
    assert_unchanged(f->path, before, blen);
    free(before);

    /* A truncated file. */
    assert_int_equal(truncate(f->path, (off_t)page * 3 + 100), 0);
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_unchanged(f->path, before, blen);
    free(before);
}

static void test_foreign_sqlite_refused(void **state)
{
    fixture *f = *state;
    db *d;
    base_err err;
    size_t blen;
    char *before;
    raw_exec(f->path, "CREATE TABLE photos(id INTEGER PRIMARY KEY, path TEXT);"
                      "INSERT INTO photos(path) VALUES('a.jpg');");
    before = th_read_file(f->path, &blen);
    assert_int_equal(db_open(f->path, DB_OPEN_CREATE, &err, &d), BASE_EDB);
    assert_non_null(strstr(err.msg, "another program"));
    assert_unchanged(f->path, before, blen);
    free(before);
}

static void test_readonly(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path), *r = NULL;
    base_err err;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    assert_int_equal(append_nth(d, m, 1, &err), 0);
    assert_int_equal(db_open(f->path, DB_OPEN_READONLY, &err, &r), 0);
    assert_int_equal(append_nth(r, m, 2, &err), BASE_ESTATE);
    assert_non_null(strstr(err.msg, "read-only"));
    assert_int_equal(append_nth(d, m, 2, &err), 0);
    {
        db_match *lm;
        assert_int_equal(db_match_load(r, m, &lm, &err), 0);
        assert_int_equal(lm->nevents, 2);
        db_match_free(lm);
    }
    db_close(r);
    db_close(d);
    /* A reader does not migrate an old file: it says what to do. */
    char *old = th_path(f->dir, "old.db");
    raw_exec(old, schema_v1);
    assert_int_equal(db_open(old, DB_OPEN_READONLY, &err, &r), BASE_EVERSION);
    assert_non_null(strstr(err.msg, "version 1"));
    assert_int_equal(raw_int(old, "PRAGMA user_version"), 1);
    free(old);
}

typedef struct list_ctx {
    int n;
    int64_t ids[16];
    db_match_info last;
} list_ctx;

static int list_cb(void *ctx, const db_match_info *m)
{
    list_ctx *c = ctx;
    if (c->n < 16)
        c->ids[c->n] = m->id;
    c->n++;
    c->last = *m;
    c->last.options = c->last.header = c->last.last_scores = NULL;
    return 0;
}

static void test_events_and_finish(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    db_event bad = {.seat = 1,
                    .move = "{\"type\":\"place\"}",
                    .legal = false,
                    .rule = "line-duplicate",
                    .reason = "the row at y=0 would hold two red circles",
                    .scores = "[1,2]",
                    .extra = "{\"note\":\"the bag is empty\"}",
                    .source = DB_SRC_TYPED};
    db_match *lm;
    int seq = 0, scores[2] = {30, 12};

    assert_int_equal(append_nth(d, m, 1, &err), 0);
    assert_int_equal(db_event_append(d, m, &bad, &seq, &err), 0);
    assert_int_equal(seq, 2);
    /* Bad events are refused with a reason, and not stored. */
    bad.seat = 5;
    assert_int_equal(db_event_append(d, m, &bad, &seq, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "seat 5"));
    bad.seat = 0;
    bad.move = "{not json";
    assert_int_equal(db_event_append(d, m, &bad, &seq, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "event 3"));
    bad.move = "{}";
    bad.rule = NULL;
    assert_int_equal(db_event_append(d, m, &bad, &seq, &err), BASE_EINVAL);
    assert_int_equal(db_event_append(d, m + 100, &bad, &seq, &err), BASE_ENOTFOUND);

    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    assert_int_equal(lm->nevents, 2);
    assert_int_equal(lm->events[0].seq, 1);
    assert_true(lm->events[0].legal);
    assert_null(lm->events[0].rule);
    assert_string_equal(lm->events[0].scores, "[1,2]");
    assert_non_null(lm->events[0].time);
    assert_int_equal(lm->events[1].seat, 1);
    assert_false(lm->events[1].legal);
    assert_string_equal(lm->events[1].reason, "the row at y=0 would hold two red circles");
    assert_int_equal(lm->events[1].source, DB_SRC_TYPED);
    assert_null(lm->events[1].position);
    assert_string_equal(lm->events[1].extra, "{\"note\":\"the bag is empty\"}");
    assert_null(lm->events[0].extra);
    assert_int_equal(lm->info.state, DB_LIVE);
    assert_string_equal(lm->info.ended, "");
    assert_false(lm->info.seats[0].has_score);
    assert_string_equal(lm->info.header, "{\"game\":\"qwirkle\",\"players\":[\"Ann\",\"Bob\"]}");
    db_match_free(lm);

    assert_int_equal(db_match_finish(d, m, scores, 3, 1u, &err), BASE_EINVAL);
    assert_int_equal(db_match_finish(d, m, scores, 2, 1u, &err), 0);
    assert_int_equal(append_nth(d, m, 3, &err), BASE_ESTATE);
    assert_non_null(strstr(err.msg, "finished"));
    assert_int_equal(db_match_finish(d, m, scores, 2, 1u, &err), BASE_ESTATE);
    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    assert_int_equal(lm->info.state, DB_FINISHED);
    assert_true(lm->info.seats[0].has_score);
    assert_int_equal(lm->info.seats[0].score, 30);
    assert_true(lm->info.seats[0].winner);
    assert_false(lm->info.seats[1].winner);
    assert_int_equal(lm->info.seats[1].score, 12);
    assert_true(lm->info.ended[0] != '\0');
    db_match_free(lm);
    assert_int_equal(db_match_load(d, m + 7, &lm, &err), BASE_ENOTFOUND);
    assert_null(lm);

    /* Bad matches. */
    {
        const char *same[] = {"Ann", "Ann"}, *empty[] = {""};
        int64_t id;
        assert_int_equal(db_match_new(d, "qwirkle", NULL, NULL, same, 2, NULL, &id, &err),
                         BASE_EINVAL);
        assert_non_null(strstr(err.msg, "twice"));
        assert_int_equal(db_match_new(d, "qwirkle", NULL, NULL, empty, 1, NULL, &id, &err),
                         BASE_EINVAL);
        assert_int_equal(db_match_new(d, "qwirkle", "{oops", NULL, same, 1, NULL, &id, &err),
                         BASE_EINVAL);
        assert_int_equal(db_match_new(d, "qwirkle", NULL, NULL, same, 0, NULL, &id, &err),
                         BASE_ERANGE);
    }
    {
        list_ctx c = {0};
        assert_int_equal(db_matches_list(d, NULL, list_cb, &c, &err), 0);
        assert_int_equal(c.n, 1); /* the refused matches left nothing */
    }
    db_close(d);
}

static void test_transaction_rollback(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    list_ctx c = {0};
    assert_int_equal(db_begin(d, &err), 0);
    assert_int_equal(db_begin(d, &err), BASE_ESTATE);
    int64_t m = new_match(d, "cards", "Ann", "Bob");
    for (int i = 1; i <= 5; i++)
        assert_int_equal(append_nth(d, m, i, &err), 0);
    /* A failing write inside the transaction undoes only itself. */
    assert_int_equal(append_nth(d, m + 1, 1, &err), BASE_ENOTFOUND);
    assert_int_equal(append_nth(d, m, 6, &err), 0);
    db_rollback(d);
    assert_int_equal(db_matches_list(d, NULL, list_cb, &c, &err), 0);
    assert_int_equal(c.n, 0);
    assert_int_equal(db_commit(d, &err), BASE_ESTATE);

    assert_int_equal(db_begin(d, &err), 0);
    m = new_match(d, "cards", "Ann", "Bob");
    assert_int_equal(append_nth(d, m, 1, &err), 0);
    assert_int_equal(db_commit(d, &err), 0);
    db_close(d);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM events"), 1);
}

typedef struct stats_ctx {
    int n;
    char names[8][16];
    db_player_stats s[8];
} stats_ctx;

static int stats_cb(void *ctx, const db_player_stats *s)
{
    stats_ctx *c = ctx;
    if (c->n < 8) {
        snprintf(c->names[c->n], sizeof c->names[0], "%s", s->name);
        c->s[c->n] = *s;
        c->s[c->n].name = c->names[c->n];
    }
    c->n++;
    return 0;
}

static void test_filters_and_stats(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    int64_t a = new_match(d, "qwirkle", "Ann", "Bob");
    int64_t b = new_match(d, "qwirkle", "Bob", "Cy");
    int64_t c = new_match(d, "cards", "Cy", "Ann");
    int s1[2] = {20, 10}, s2[2] = {15, 15};
    list_ctx lc;
    db_filter fl = {.state = -1};

    assert_int_equal(db_match_finish(d, a, s1, 2, 1u, &err), 0);
    assert_int_equal(db_match_finish(d, b, s2, 2, 3u, &err), 0); /* a tie */
    assert_int_equal(append_nth(d, c, 1, &err), 0);

    memset(&lc, 0, sizeof lc);
    fl.game = "qwirkle";
    assert_int_equal(db_matches_list(d, &fl, list_cb, &lc, &err), 0);
    assert_int_equal(lc.n, 2);
    memset(&lc, 0, sizeof lc);
    fl.game = NULL;
    fl.player = "Ann";
    assert_int_equal(db_matches_list(d, &fl, list_cb, &lc, &err), 0);
    assert_int_equal(lc.n, 2);
    assert_int_equal(lc.ids[0], c); /* newest first */
    assert_int_equal(lc.ids[1], a);
    memset(&lc, 0, sizeof lc);
    fl.player = NULL;
    fl.state = DB_LIVE;
    assert_int_equal(db_matches_list(d, &fl, list_cb, &lc, &err), 0);
    assert_int_equal(lc.n, 1);
    assert_int_equal(lc.ids[0], c);
    assert_int_equal(lc.last.nevents, 1);

    stats_ctx sc = {0};
    assert_int_equal(db_stats(d, NULL, NULL, stats_cb, &sc, &err), 0);
    assert_int_equal(sc.n, 3);
    /* Ann: won a (20), plays c (live). */
    assert_string_equal(sc.s[0].name, "Ann");
    assert_int_equal(sc.s[0].games, 1);
    assert_int_equal(sc.s[0].wins, 1);
    assert_int_equal(sc.s[0].live, 1);
    assert_true(sc.s[0].average == 20.0);
    /* Bob: lost a (10), shared b (15). */
    assert_string_equal(sc.s[1].name, "Bob");
    assert_int_equal(sc.s[1].games, 2);
    assert_int_equal(sc.s[1].wins, 1);
    assert_true(sc.s[1].average == 12.5);
    memset(&sc, 0, sizeof sc);
    assert_int_equal(db_stats(d, "Cy", "qwirkle", stats_cb, &sc, &err), 0);
    assert_int_equal(sc.n, 1);
    assert_int_equal(sc.s[0].games, 1);
    assert_int_equal(sc.s[0].live, 0);
    memset(&sc, 0, sizeof sc);
    assert_int_equal(db_stats(d, "Nobody", NULL, stats_cb, &sc, &err), 0);
    assert_int_equal(sc.n, 0);
    db_close(d);
}

typedef struct corr_ctx {
    int n;
    char fields[8][16];
    char before[8][64], after[8][64], note[64];
} corr_ctx;

static int corr_cb(void *ctx, const db_correction *c)
{
    corr_ctx *k = ctx;
    if (k->n < 8) {
        snprintf(k->fields[k->n], sizeof k->fields[0], "%s", c->field);
        snprintf(k->before[k->n], sizeof k->before[0], "%s", c->before ? c->before : "NULL");
        snprintf(k->after[k->n], sizeof k->after[0], "%s", c->after ? c->after : "NULL");
        snprintf(k->note, sizeof k->note, "%s", c->note ? c->note : "");
        assert_non_null(c->time);
    }
    k->n++;
    return 0;
}

static void test_corrections(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    db_match *lm;
    db_event ev;
    corr_ctx k = {0};
    int scores[2] = {1, 2};

    for (int i = 1; i <= 3; i++)
        assert_int_equal(append_nth(d, m, i, &err), 0);
    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    ev = lm->events[1];
    /* The same values: nothing to record. */
    assert_int_equal(db_event_correct(d, m, 2, &ev, "no-op", &err), 0);
    /* The referee ruled it illegal after all. */
    ev.legal = false;
    ev.rule = "not-touching";
    ev.reason = "the cube touches nothing";
    ev.points = 0;
    assert_int_equal(db_event_correct(d, m, 2, &ev, "judge's call", &err), 4);
    assert_int_equal(db_event_correct(d, m, 9, &ev, NULL, &err), BASE_ENOTFOUND);
    ev.seat = 7;
    assert_int_equal(db_event_correct(d, m, 2, &ev, NULL, &err), BASE_EINVAL);
    db_match_free(lm);

    assert_int_equal(db_corrections_list(d, m, corr_cb, &k, &err), 0);
    assert_int_equal(k.n, 4);
    assert_string_equal(k.fields[0], "legal");
    assert_string_equal(k.before[0], "1");
    assert_string_equal(k.after[0], "0");
    assert_string_equal(k.fields[1], "points");
    assert_string_equal(k.before[1], "2");
    assert_string_equal(k.fields[2], "rule");
    assert_string_equal(k.before[2], "NULL");
    assert_string_equal(k.after[2], "not-touching");
    assert_string_equal(k.fields[3], "reason");
    assert_string_equal(k.note, "judge's call");

    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    assert_false(lm->events[1].legal);
    assert_string_equal(lm->events[1].rule, "not-touching");
    assert_int_equal(lm->events[1].points, 0);
    assert_true(lm->events[0].legal); /* the others untouched */
    db_match_free(lm);
    /* Corrections stay possible after the match is over. */
    assert_int_equal(db_match_finish(d, m, scores, 2, 2u, &err), 0);
    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    ev = lm->events[2];
    ev.scores = "[3,7]";
    assert_int_equal(db_event_correct(d, m, 3, &ev, NULL, &err), 1);
    db_match_free(lm);
    db_close(d);
}

static void test_snapshots(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    unsigned char jpeg[5000];
    void *got;
    size_t len;

    for (size_t i = 0; i < sizeof jpeg; i++)
        jpeg[i] = (unsigned char)(i * 7 + 3);
    jpeg[0] = 0xFF, jpeg[1] = 0xD8, jpeg[2] = 0xFF;
    assert_int_equal(append_nth(d, m, 1, &err), 0);
    assert_int_equal(db_snapshot_put(d, m, 1, jpeg, sizeof jpeg, &err), 0);
    assert_int_equal(db_snapshot_get(d, m, 1, &got, &len, &err), 0);
    assert_int_equal(len, sizeof jpeg);
    assert_memory_equal(got, jpeg, sizeof jpeg);
    free(got);
    /* Replacing the key frame keeps one. */
    assert_int_equal(db_snapshot_put(d, m, 1, jpeg, 100, &err), 0);
    assert_int_equal(db_snapshot_get(d, m, 1, &got, &len, &err), 0);
    assert_int_equal(len, 100);
    free(got);
    assert_int_equal(db_snapshot_put(d, m, 2, jpeg, sizeof jpeg, &err), BASE_ENOTFOUND);
    assert_int_equal(db_snapshot_put(d, m, 1, "PNG.....", 8, &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "JPEG"));
    assert_int_equal(db_snapshot_get(d, m, 3, &got, &len, &err), BASE_ENOTFOUND);
    assert_null(got);
    db_close(d);
}

static int profile_cb(void *ctx, const char *name, const char *kind, const char *time)
{
    assert_non_null(name);
    assert_non_null(kind);
    assert_non_null(time);
    (*(int *)ctx)++;
    return 0;
}

static void test_profiles(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    char *kind, *data;
    int n = 0;
    assert_int_equal(db_profile_put(d, "hall", "mat", "{\"w\":500,\"h\":500}", &err), 0);
    assert_int_equal(db_profile_put(d, "cam1", "camera", "{\"fx\":900}", &err), 0);
    assert_int_equal(db_profile_put(d, "hall", "mat", "{\"w\":600}", &err), 0);
    assert_int_equal(db_profile_put(d, "bad", "mat", "{w:1", &err), BASE_EINVAL);
    assert_non_null(strstr(err.msg, "bad"));
    assert_int_equal(db_profile_get(d, "hall", &kind, &data, &err), 0);
    assert_string_equal(kind, "mat");
    assert_string_equal(data, "{\"w\":600}");
    free(kind);
    free(data);
    assert_int_equal(db_profile_get(d, "nope", NULL, &data, &err), BASE_ENOTFOUND);
    assert_non_null(strstr(err.msg, "nope"));
    assert_null(data);
    assert_int_equal(db_profile_list(d, "mat", profile_cb, &n, &err), 0);
    assert_int_equal(n, 1);
    n = 0;
    assert_int_equal(db_profile_list(d, NULL, profile_cb, &n, &err), 0);
    assert_int_equal(n, 2);
    db_close(d);
}

/* An unfinished match survives closing: it is listed as live, its events
 * come back in order, and play goes on from the next seq. */
static void test_resume_live(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    base_err err;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob"), done = new_match(d, "qwirkle", "C", "D");
    int sc[2] = {0, 0};
    list_ctx c = {0};
    db_filter live = {.state = DB_LIVE};
    db_match *lm;

    for (int i = 1; i <= 5; i++)
        assert_int_equal(append_nth(d, m, i, &err), 0);
    assert_int_equal(db_match_finish(d, done, sc, 2, 0, &err), 0);
    db_close(d);

    d = open_rw(f->path);
    assert_int_equal(db_matches_list(d, &live, list_cb, &c, &err), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.ids[0], m);
    assert_int_equal(db_match_load(d, m, &lm, &err), 0);
    assert_int_equal(lm->nevents, 5);
    for (int i = 0; i < 5; i++) {
        char want[32];
        snprintf(want, sizeof want, "[%d,%d]", i + 1, 2 * (i + 1));
        assert_int_equal(lm->events[i].seq, i + 1);
        assert_int_equal(lm->events[i].seat, i % 2);
        assert_string_equal(lm->events[i].scores, want);
    }
    assert_string_equal(lm->info.last_scores, "[5,10]");
    db_match_free(lm);
    assert_int_equal(append_nth(d, m, 6, &err), 0);
    assert_int_equal(db_match_abandon(d, m, &err), 0);
    assert_int_equal(append_nth(d, m, 7, &err), BASE_ESTATE);
    db_close(d);
}

/* ---- durability: a writer SIGKILLed at random points ---- */

static void crash_writer(const char *path, int64_t match, int fd)
{
    db *d = NULL;
    base_err err;
    int seq;
    if (db_open(path, 0, &err, &d) != 0)
        _exit(3);
    for (;;) {
        db_match *lm;
        /* The next seq is whatever the store says (earlier runs left some). */
        if (db_match_load(d, match, &lm, &err) != 0)
            _exit(4);
        seq = lm->nevents + 1;
        db_match_free(lm);
        for (int k = 0; k < 1000; k++, seq++) {
            if (append_nth(d, match, seq, &err) != 0)
                _exit(5);
            /* Announced: from here on a player has heard this move. */
            if (write(fd, &seq, sizeof seq) != (ssize_t)sizeof seq)
                _exit(6);
        }
    }
}

static void test_crash_durability(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path);
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    int announced = 0, runs = 36, killed_mid = 0;
    unsigned seed = (unsigned)time(NULL);
    db_close(d);
    srand(seed);
    for (int run = 0; run < runs; run++) {
        int p[2], st, seq;
        pid_t pid;
        double t0, wait_s = (rand() % 60 + 1) / 1000.0;
        assert_int_equal(pipe(p), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(p[0]);
            crash_writer(f->path, m, p[1]);
        }
        close(p[1]);
        t0 = base_now();
        while (base_now() - t0 < wait_s) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        if (!WIFSIGNALED(st))
            fail_msg("run %d: the writer exited with %d before the kill (seed %u)", run,
                     WEXITSTATUS(st), seed);
        while (read(p[0], &seq, sizeof seq) == (ssize_t)sizeof seq) {
            if (seq != announced + 1)
                fail_msg("run %d: announced %d after %d", run, seq, announced);
            announced = seq;
        }
        close(p[0]);
        /* Every announced event is there; the file is sound. */
        {
            db_match *lm;
            base_err err;
            char *ic;
            d = open_rw(f->path);
            assert_int_equal(db_match_load(d, m, &lm, &err), 0);
            if (lm->nevents < announced)
                fail_msg("run %d: %d events announced, only %d stored (seed %u)", run,
                         announced, lm->nevents, seed);
            /* At most the one in flight was stored but not announced. */
            assert_true(lm->nevents <= announced + 1);
            killed_mid += lm->nevents == announced + 1;
            for (int i = 0; i < lm->nevents; i++)
                assert_int_equal(lm->events[i].seq, i + 1);
            announced = lm->nevents; /* the in-flight one counts from now */
            db_match_free(lm);
            db_close(d);
            ic = raw_text(f->path, "PRAGMA integrity_check");
            assert_string_equal(ic, "ok");
            free(ic);
        }
    }
    print_message("crash test: %d runs, %d events survived, %d kills landed inside an append "
                  "(its event stored, never announced) (seed %u)\n",
                  runs, announced, killed_mid, seed);
    assert_true(announced > 0);
}

/* ---- a reader beside a writer (two processes) ---- */

static void test_reader_while_writer(void **state)
{
    fixture *f = *state;
    db *d = open_rw(f->path), *r = NULL;
    int64_t m = new_match(d, "qwirkle", "Ann", "Bob");
    const int total = 150;
    int st, loads = 0, partial = 0, last = 0, go[2];
    pid_t pid;
    base_err err;
    db_close(d);
    assert_int_equal(pipe(go), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        db *w = NULL;
        base_err e;
        char c;
        close(go[1]);
        /* Start once the reader holds its connection. */
        if (read(go[0], &c, 1) != 1 || db_open(f->path, 0, &e, &w) != 0)
            _exit(3);
        for (int i = 1; i <= total; i++)
            if (append_nth(w, m, i, &e) != 0)
                _exit(4);
        db_close(w);
        _exit(0);
    }
    close(go[0]);
    assert_int_equal(db_open(f->path, DB_OPEN_READONLY, &err, &r), 0);
    assert_int_equal(write(go[1], "g", 1), 1);
    close(go[1]);
    for (;;) {
        db_match *lm;
        int done = waitpid(pid, &st, WNOHANG) == pid;
        /* Never "busy": WAL readers do not wait for the writer. */
        if (db_match_load(r, m, &lm, &err) != 0)
            fail_msg("reader: %s", err.msg);
        assert_true(lm->nevents >= last);
        for (int i = 0; i < lm->nevents; i++)
            assert_int_equal(lm->events[i].seq, i + 1);
        if (lm->nevents > 0) {
            char want[32];
            int n = lm->nevents;
            snprintf(want, sizeof want, "[%d,%d]", n, 2 * n);
            assert_string_equal(lm->info.last_scores, want);
            assert_string_equal(lm->events[n - 1].scores, want);
        }
        last = lm->nevents;
        partial += last > 0 && last < total;
        db_match_free(lm);
        loads++;
        if (done)
            break;
    }
    db_close(r);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(last, total);
    print_message("reader: %d loads while the writer appended %d events, %d saw a match in "
                  "progress\n",
                  loads, total, partial);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrate_from_v0, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_file_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_file_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_sqlite_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_events_and_finish, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transaction_rollback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filters_and_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_profiles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_durability, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_while_writer, setup, teardown),
    };
    th_case_filter();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
