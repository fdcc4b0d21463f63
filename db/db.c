/* db/db.c: the match store on SQLite (see db.h for the contract and
 * docs/database.md for the schema). */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "schema.h"

/* How long a writer waits for another one before giving up: a reader
 * never blocks a writer in WAL mode, so only two writers can collide. */
#define DB__BUSY_MS 5000

#define DB__NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* The statements of the hot paths, prepared once per handle. */
enum {
    DB__Q_APPEND_STATE,
    DB__Q_APPEND,
    DB__Q_EVENTS,
    DB__Q_SEATS,
    DB__Q_INFO,
    DB__NQ
};

struct db {
    sqlite3 *conn;
    char *path;
    int flags;
    int version;
    bool in_tx; /* inside db_begin() */
    sqlite3_stmt *q[DB__NQ];
};

static const char *const db__state_names[] = {"live", "finished", "abandoned"};
static const char *const db__source_names[] = {"camera", "typed", "imported", "correction"};

const char *db_state_name(int state)
{
    return state >= 0 && state <= DB_ABANDONED ? db__state_names[state] : NULL;
}

static int db__state_from_name(const char *name)
{
    for (int i = 0; name && i <= DB_ABANDONED; i++)
        if (strcmp(db__state_names[i], name) == 0)
            return i;
    return -1;
}

const char *db_source_name(int source)
{
    return source >= 0 && source <= DB_SRC_CORRECTION ? db__source_names[source] : NULL;
}

int db_source_from_name(const char *name)
{
    for (int i = 0; name && i <= DB_SRC_CORRECTION; i++)
        if (strcmp(db__source_names[i], name) == 0)
            return i;
    return -1;
}

/* ---- errors ---- */

static int db__code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return BASE_EBUSY;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
        return BASE_EINVAL;
    case SQLITE_NOMEM:
        return BASE_ENOMEM;
    case SQLITE_IOERR:
    case SQLITE_FULL:
        return BASE_EIO;
    default:
        return BASE_EDB;
    }
}

/* Records the connection's last error as "PATH: what: sqlite message". */
static int db__fail(const db *d, int rc, base_err *err, const char *what)
{
    return base_err_set(err, db__code(rc), "%s: %s: %s", d->path, what,
                        sqlite3_errmsg(d->conn));
}

static int db__exec(db *d, const char *sql, base_err *err, const char *what)
{
    int rc = sqlite3_exec(d->conn, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db__fail(d, rc, err, what);
}

/* A cached statement, reset and unbound, ready to bind. */
static sqlite3_stmt *db__stmt(db *d, int which, const char *sql, base_err *err)
{
    if (!d->q[which]) {
        int rc = sqlite3_prepare_v3(d->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &d->q[which],
                                    NULL);
        if (rc != SQLITE_OK) {
            db__fail(d, rc, err, "cannot prepare a query");
            return NULL;
        }
    }
    sqlite3_reset(d->q[which]);
    sqlite3_clear_bindings(d->q[which]);
    return d->q[which];
}

static sqlite3_stmt *db__prepare(db *d, const char *sql, base_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        db__fail(d, rc, err, "cannot prepare a query");
        return NULL;
    }
    return st;
}

static void db__bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static char *db__strdup(const char *s)
{
    size_t n;
    char *c;
    if (!s)
        return NULL;
    n = strlen(s) + 1;
    if ((c = malloc(n)))
        memcpy(c, s, n);
    return c;
}

static void db__copy(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

/* ---- write units: one transaction, or a savepoint inside db_begin() ---- */

static int db__writable(db *d, base_err *err)
{
    if (d->flags & DB_OPEN_READONLY)
        return base_err_set(err, BASE_ESTATE, "%s was opened read-only", d->path);
    return 0;
}

static int db__wbegin(db *d, base_err *err)
{
    int rc;
    if ((rc = db__writable(d, err)) != 0)
        return rc;
    /* IMMEDIATE takes the write lock now, so a unit that reads then writes
     * never fails half-way on a lock another writer took in between. */
    return db__exec(d, d->in_tx ? "SAVEPOINT db_op" : "BEGIN IMMEDIATE", err,
                    "cannot start a transaction");
}

static int db__wend(db *d, int status, base_err *err)
{
    if (status == 0) {
        int rc = sqlite3_exec(d->conn, d->in_tx ? "RELEASE db_op" : "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        status = db__fail(d, rc, err, "cannot commit");
    }
    if (d->in_tx)
        sqlite3_exec(d->conn, "ROLLBACK TO db_op; RELEASE db_op", NULL, NULL, NULL);
    else if (!sqlite3_get_autocommit(d->conn))
        sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
    return status;
}

int db_begin(db *d, base_err *err)
{
    int rc;
    if ((rc = db__writable(d, err)) != 0)
        return rc;
    if (d->in_tx)
        return base_err_set(err, BASE_ESTATE, "%s: a transaction is already open", d->path);
    if ((rc = db__exec(d, "BEGIN IMMEDIATE", err, "cannot start a transaction")) != 0)
        return rc;
    d->in_tx = true;
    return 0;
}

int db_commit(db *d, base_err *err)
{
    int rc;
    if (!d->in_tx)
        return base_err_set(err, BASE_ESTATE, "%s: no transaction is open", d->path);
    d->in_tx = false;
    if ((rc = db__exec(d, "COMMIT", err, "cannot commit")) != 0) {
        if (!sqlite3_get_autocommit(d->conn))
            sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return 0;
}

void db_rollback(db *d)
{
    if (!d || !d->in_tx)
        return;
    d->in_tx = false;
    if (!sqlite3_get_autocommit(d->conn))
        sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- opening ---- */

/* Looks at the first 100 bytes without SQLite: a text file or a file with
 * a damaged header is refused here, before any connection touches it. */
static int db__check_header(const char *path, bool *empty, base_err *err)
{
    static const char magic[16] = "SQLite format 3";
    unsigned char h[100];
    struct stat sb;
    ssize_t n;
    unsigned page;
    int fd = open(path, O_RDONLY);

    *empty = false;
    if (fd < 0)
        return base_err_set(err, errno == ENOENT ? BASE_ENOTFOUND : BASE_EIO,
                            "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return base_err_set(err, BASE_EDB, "%s is not a regular file", path);
    }
    if (sb.st_size == 0) {
        close(fd);
        *empty = true; /* SQLite's own notion of a new, empty database */
        return 0;
    }
    n = read(fd, h, sizeof h);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, magic, sizeof magic) != 0)
        return base_err_set(err, BASE_EDB,
                            "%s is not a tablecam database (not a SQLite file); it was left "
                            "unchanged",
                            path);
    page = (unsigned)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || (page & (page - 1)) != 0 || h[21] != 64 || h[22] != 32 || h[23] != 32)
        return base_err_set(err, BASE_EDB,
                            "%s is corrupt (its SQLite header is damaged); it was left unchanged",
                            path);
    if (sb.st_size % page != 0)
        return base_err_set(err, BASE_EDB,
                            "%s is corrupt (%lld bytes is not a whole number of %u-byte pages); "
                            "it was left unchanged",
                            path, (long long)sb.st_size, page);
    return 0;
}

static int db__pragma_int(sqlite3 *conn, const char *sql, int *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(conn, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Reads the file through a read-only connection and decides whether it is
 * a tablecam database we may use: *version gets its schema version. */
static int db__inspect(const char *path, bool full_check, sqlite3 **keep, int *version,
                       base_err *err)
{
    sqlite3 *conn = NULL;
    int rc, app = 0, uv = 0, nschema = 0;
    const char *what = "cannot read it";

    *version = 0;
    rc = sqlite3_open_v2(path, &conn, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(conn, DB__BUSY_MS);
        what = "cannot read its header";
        rc = db__pragma_int(conn, "PRAGMA application_id", &app);
    }
    if (rc == SQLITE_OK) {
        what = "cannot read its version";
        rc = db__pragma_int(conn, "PRAGMA user_version", &uv);
    }
    if (rc == SQLITE_OK) {
        what = "cannot read its schema";
        rc = db__pragma_int(conn, "SELECT count(*) FROM sqlite_schema", &nschema);
    }
    if (rc != SQLITE_OK) {
        int code = (rc & 0xff) == SQLITE_BUSY ? BASE_EBUSY : BASE_EDB;
        base_err_set(err, code, "%s is not a usable tablecam database (%s: %s); it was left "
                     "unchanged", path, what, conn ? sqlite3_errmsg(conn) : sqlite3_errstr(rc));
        sqlite3_close(conn);
        return code;
    }
    if (app != DB_APPLICATION_ID && (app != 0 || uv != 0 || nschema != 0)) {
        sqlite3_close(conn);
        return base_err_set(err, BASE_EDB,
                            "%s is a SQLite database of another program (application_id "
                            "0x%08x), not a tablecam one; it was left unchanged",
                            path, (unsigned)app);
    }
    if (uv > DB_SCHEMA_VERSION) {
        sqlite3_close(conn);
        return base_err_set(err, BASE_EVERSION,
                            "%s was written by a newer tablecam (schema version %d); this "
                            "tablecam reads versions up to %d",
                            path, uv, DB_SCHEMA_VERSION);
    }
    if (full_check && nschema > 0) {
        /* Before the first write: a damaged page found now costs a refusal,
         * found later it could cost the file. */
        sqlite3_stmt *st;
        char first[200] = "";
        rc = sqlite3_prepare_v2(conn, "PRAGMA quick_check(1)", -1, &st, NULL);
        if (rc == SQLITE_OK) {
            if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                db__copy(first, sizeof first, sqlite3_column_text(st, 0));
                rc = SQLITE_OK;
            }
            sqlite3_finalize(st);
        }
        for (char *c = first; *c; c++)
            if (*c == '\n')
                *c = ' ';
        if (rc != SQLITE_OK || strcmp(first, "ok") != 0) {
            base_err_set(err, BASE_EDB, "%s is corrupt (%s); it was left unchanged", path,
                         rc != SQLITE_OK ? sqlite3_errmsg(conn) : first);
            sqlite3_close(conn);
            return BASE_EDB;
        }
    }
    *version = uv;
    if (keep)
        *keep = conn;
    else
        sqlite3_close(conn);
    return 0;
}

void db_close(db *d)
{
    if (!d)
        return;
    db_rollback(d);
    for (int i = 0; i < DB__NQ; i++)
        sqlite3_finalize(d->q[i]);
    sqlite3_close(d->conn);
    free(d->path);
    free(d);
}

int db_schema_version(const db *d) { return d->version; }

static int db__open_writer(db *d, bool exists, base_err *err)
{
    int rc, v = 0;
    char mode[16] = "";
    sqlite3_stmt *st;
    int oflags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);

    if ((rc = sqlite3_open_v2(d->path, &d->conn, oflags, NULL)) != SQLITE_OK)
        return base_err_set(err, db__code(rc), "cannot open %s for writing: %s", d->path,
                            d->conn ? sqlite3_errmsg(d->conn) : sqlite3_errstr(rc));
    sqlite3_busy_timeout(d->conn, DB__BUSY_MS);
    sqlite3_extended_result_codes(d->conn, 1);
    if ((rc = db__exec(d, "PRAGMA foreign_keys=ON", err, "cannot enable foreign keys")) != 0)
        return rc;
    /* WAL lets readers read while we write; FULL syncs the WAL at every
     * commit, which is what makes an announced move survive a power cut. */
    if (!(st = db__prepare(d, "PRAGMA journal_mode=WAL", err)))
        return BASE_EDB;
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        db__copy(mode, sizeof mode, sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (strcmp(mode, "wal") != 0)
        return base_err_set(err, BASE_EDB, "%s: cannot switch to WAL mode (%s)", d->path,
                            mode[0] ? mode : sqlite3_errmsg(d->conn));
    if ((rc = db__exec(d, "PRAGMA synchronous=FULL", err, "cannot set synchronous")) != 0)
        return rc;
    if ((rc = db__exec(d, "BEGIN IMMEDIATE", err, "cannot lock it to migrate")) != 0)
        return rc;
    /* Read again under the lock: another process may have migrated it. */
    if ((rc = db__pragma_int(d->conn, "PRAGMA user_version", &v)) != SQLITE_OK) {
        rc = db__fail(d, rc, err, "cannot read its version");
    } else if (v > DB_SCHEMA_VERSION) {
        rc = base_err_set(err, BASE_EVERSION,
                          "%s was written by a newer tablecam (schema version %d); this "
                          "tablecam reads versions up to %d",
                          d->path, v, DB_SCHEMA_VERSION);
    } else if (v < DB_SCHEMA_VERSION) {
        rc = db__migrate(d->conn, v, d->path, err);
    }
    if (rc == 0 && (rc = db__exec(d, "COMMIT", err, "cannot commit the migration")) == 0) {
        d->version = DB_SCHEMA_VERSION;
        return 0;
    }
    sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int db_open(const char *path, int flags, base_err *err, db **out)
{
    db *d;
    bool empty = false, exists = true;
    int rc, version = 0;

    *out = NULL;
    if (!path || !*path)
        return base_err_set(err, BASE_EINVAL, "no database file given");
    rc = db__check_header(path, &empty, err);
    if (rc == BASE_ENOTFOUND) {
        if (!(flags & DB_OPEN_CREATE) || (flags & DB_OPEN_READONLY))
            return base_err_set(err, BASE_ENOTFOUND, "no database at %s", path);
        exists = false;
        rc = 0;
    } else if (rc != 0) {
        return rc;
    }
    if (!(d = calloc(1, sizeof *d)) || !(d->path = db__strdup(path))) {
        free(d);
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    d->flags = flags;
    if (flags & DB_OPEN_READONLY) {
        if (empty) {
            rc = base_err_set(err, BASE_EVERSION, "%s is empty: it holds no tablecam schema yet",
                              path);
        } else if ((rc = db__inspect(path, false, &d->conn, &version, err)) == 0) {
            d->version = version;
            sqlite3_extended_result_codes(d->conn, 1);
            if (version < DB_SCHEMA_VERSION)
                rc = base_err_set(err, BASE_EVERSION,
                                  "%s is at schema version %d and needs migrating to %d: open "
                                  "it once for writing (e.g. tablecam import)",
                                  path, version, DB_SCHEMA_VERSION);
            else
                rc = db__exec(d, "PRAGMA query_only=ON", err, "cannot make it read-only");
        }
    } else {
        if (exists && !empty)
            rc = db__inspect(path, true, NULL, &version, err);
        if (rc == 0)
            rc = db__open_writer(d, exists, err);
    }
    if (rc != 0) {
        db_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

/* ---- matches ---- */

/* Appends s to buf as a JSON string. */
static void db__json_str(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap)
        buf[n++] = '"';
    for (; *s && n + 8 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(buf + n, cap - n, "\\u%04x", c);
        } else {
            buf[n++] = (char)c;
        }
    }
    if (n + 1 < cap)
        buf[n++] = '"';
    buf[n] = '\0';
}

int db_match_new(db *d, const char *game, const char *options_json, const char *header_json,
                 const char *const *players, int nplayers, const char *started,
                 int64_t *match_id, base_err *err)
{
    char header[DB_MAX_SEATS * 2 * DB_NAME_MAX + 256];
    sqlite3_stmt *st = NULL;
    int rc;
    int64_t id;

    if (!game || !*game)
        return base_err_set(err, BASE_EINVAL, "a match needs a game id");
    if (nplayers < 1 || nplayers > DB_MAX_SEATS)
        return base_err_set(err, BASE_ERANGE, "a match has 1 to %d players, not %d",
                            DB_MAX_SEATS, nplayers);
    for (int i = 0; i < nplayers; i++) {
        if (!players[i] || !*players[i] || strlen(players[i]) >= DB_NAME_MAX)
            return base_err_set(err, BASE_EINVAL, "player %d: a name has 1 to %d bytes", i + 1,
                                DB_NAME_MAX - 1);
        for (int j = 0; j < i; j++)
            if (strcmp(players[i], players[j]) == 0)
                return base_err_set(err, BASE_EINVAL, "player '%s' sits twice in one match",
                                    players[i]);
    }
    if (!header_json) {
        snprintf(header, sizeof header, "{\"game\":");
        db__json_str(header, sizeof header, game);
        strcat(header, ",\"players\":[");
        for (int i = 0; i < nplayers; i++) {
            if (i)
                strcat(header, ",");
            db__json_str(header, sizeof header, players[i]);
        }
        strcat(header, "]}");
        header_json = header;
    }
    if ((rc = db__wbegin(d, err)) != 0)
        return rc;
    st = db__prepare(d,
                     "INSERT INTO matches(game, options, header, started) VALUES(?1, "
                     "coalesce(?2, '{}'), ?3, coalesce(?4, " DB__NOW_SQL "))",
                     err);
    if (!st)
        return db__wend(d, BASE_EDB, err);
    sqlite3_bind_text(st, 1, game, -1, SQLITE_STATIC);
    db__bind_text(st, 2, options_json);
    sqlite3_bind_text(st, 3, header_json, -1, SQLITE_STATIC);
    db__bind_text(st, 4, started);
    if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
        rc = db__fail(d, rc, err, "cannot store the match (options and header must be JSON)");
        sqlite3_finalize(st);
        return db__wend(d, rc, err);
    }
    sqlite3_finalize(st);
    id = sqlite3_last_insert_rowid(d->conn);
    {
        sqlite3_stmt *ip = db__prepare(
            d, "INSERT INTO players(name) VALUES(?1) ON CONFLICT(name) DO NOTHING", err);
        sqlite3_stmt *is = ip ? db__prepare(d,
                                            "INSERT INTO seats(match_id, seat, player_id) "
                                            "SELECT ?1, ?2, id FROM players WHERE name = ?3",
                                            err)
                              : NULL;
        rc = ip && is ? 0 : BASE_EDB;
        for (int i = 0; rc == 0 && i < nplayers; i++) {
            int s;
            sqlite3_reset(ip);
            sqlite3_bind_text(ip, 1, players[i], -1, SQLITE_STATIC);
            if ((s = sqlite3_step(ip)) != SQLITE_DONE) {
                rc = db__fail(d, s, err, "cannot store a player");
                break;
            }
            sqlite3_reset(is);
            sqlite3_bind_int64(is, 1, id);
            sqlite3_bind_int(is, 2, i);
            sqlite3_bind_text(is, 3, players[i], -1, SQLITE_STATIC);
            if ((s = sqlite3_step(is)) != SQLITE_DONE)
                rc = db__fail(d, s, err, "cannot store a seat");
        }
        sqlite3_finalize(ip);
        sqlite3_finalize(is);
    }
    if ((rc = db__wend(d, rc, err)) == 0 && match_id)
        *match_id = id;
    return rc;
}

/* Reads a match's state and seat count inside a write unit. */
static int db__match_state(db *d, int64_t match_id, int *state, int *nseats, int *last_seq,
                           base_err *err)
{
    sqlite3_stmt *st = db__stmt(d, DB__Q_APPEND_STATE,
                                "SELECT m.state, (SELECT count(*) FROM seats s WHERE "
                                "s.match_id = m.id), (SELECT coalesce(max(seq), 0) FROM events e "
                                "WHERE e.match_id = m.id) FROM matches m WHERE m.id = ?1",
                                err);
    int rc;
    if (!st)
        return BASE_EDB;
    sqlite3_bind_int64(st, 1, match_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *state = db__state_from_name((const char *)sqlite3_column_text(st, 0));
        *nseats = sqlite3_column_int(st, 1);
        *last_seq = sqlite3_column_int(st, 2);
        sqlite3_reset(st);
        return 0;
    }
    sqlite3_reset(st);
    if (rc == SQLITE_DONE)
        return base_err_set(err, BASE_ENOTFOUND, "%s: no match %lld", d->path,
                            (long long)match_id);
    return db__fail(d, rc, err, "cannot read the match");
}

/* Starts a write unit on a match and reads its state, seat count and last
 * event; on failure the unit is already ended. */
static int db__wbegin_match(db *d, int64_t match_id, int *state, int *nseats, int *last_seq,
                            base_err *err)
{
    int rc;
    if ((rc = db__wbegin(d, err)) != 0)
        return rc;
    if ((rc = db__match_state(d, match_id, state, nseats, last_seq, err)) != 0)
        return db__wend(d, rc, err);
    return 0;
}

static int db__set_end(db *d, int64_t match_id, int state, const int *scores, int n,
                       unsigned winners, base_err *err)
{
    int rc, cur, nseats, last;
    sqlite3_stmt *st;

    if ((rc = db__wbegin_match(d, match_id, &cur, &nseats, &last, err)) != 0)
        return rc;
    if (cur != DB_LIVE)
        return db__wend(d,
                        base_err_set(err, BASE_ESTATE, "%s: match %lld is already %s", d->path,
                                     (long long)match_id, db_state_name(cur)),
                        err);
    if (scores && n != nseats)
        return db__wend(d,
                        base_err_set(err, BASE_EINVAL,
                                     "match %lld has %d seats, but %d final scores were given",
                                     (long long)match_id, nseats, n),
                        err);
    if (!(st = db__prepare(d,
                           "UPDATE matches SET state = ?2, ended = " DB__NOW_SQL " WHERE id = ?1",
                           err)))
        return db__wend(d, BASE_EDB, err);
    sqlite3_bind_int64(st, 1, match_id);
    sqlite3_bind_text(st, 2, db_state_name(state), -1, SQLITE_STATIC);
    if ((rc = sqlite3_step(st)) != SQLITE_DONE)
        rc = db__fail(d, rc, err, "cannot end the match");
    else
        rc = 0;
    sqlite3_finalize(st);
    if (rc == 0 && scores) {
        if (!(st = db__prepare(d,
                               "UPDATE seats SET score = ?3, winner = ?4 WHERE match_id = ?1 AND "
                               "seat = ?2",
                               err)))
            return db__wend(d, BASE_EDB, err);
        for (int i = 0; rc == 0 && i < n; i++) {
            int s;
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, match_id);
            sqlite3_bind_int(st, 2, i);
            sqlite3_bind_int(st, 3, scores[i]);
            sqlite3_bind_int(st, 4, (winners >> i) & 1u);
            if ((s = sqlite3_step(st)) != SQLITE_DONE)
                rc = db__fail(d, s, err, "cannot store a final score");
        }
        sqlite3_finalize(st);
    }
    return db__wend(d, rc, err);
}

int db_match_finish(db *d, int64_t match_id, const int *scores, int n, unsigned winners,
                    base_err *err)
{
    if (!scores || n < 1)
        return base_err_set(err, BASE_EINVAL, "finishing a match needs its final scores");
    return db__set_end(d, match_id, DB_FINISHED, scores, n, winners, err);
}

int db_match_abandon(db *d, int64_t match_id, base_err *err)
{
    return db__set_end(d, match_id, DB_ABANDONED, NULL, 0, 0, err);
}

/* ---- events ---- */

static int db__check_event(const db_event *ev, int nseats, base_err *err)
{
    if (!ev->move || !ev->scores)
        return base_err_set(err, BASE_EINVAL, "an event needs its move and its scores (JSON)");
    if (!ev->legal && (!ev->rule || !*ev->rule))
        return base_err_set(err, BASE_EINVAL, "an illegal event needs the rule it breaks");
    if (ev->seat < 0 || ev->seat >= nseats)
        return base_err_set(err, BASE_EINVAL, "seat %d is not at this table (it has %d seats)",
                            ev->seat, nseats);
    if (!db_source_name(ev->source))
        return base_err_set(err, BASE_EINVAL, "unknown event source %d", ev->source);
    return 0;
}

int db_event_append(db *d, int64_t match_id, const db_event *ev, int *seq, base_err *err)
{
    int rc, state, nseats, last;
    sqlite3_stmt *st;

    if ((rc = db__wbegin_match(d, match_id, &state, &nseats, &last, err)) != 0)
        return rc;
    if (state != DB_LIVE)
        return db__wend(d,
                        base_err_set(err, BASE_ESTATE,
                                     "%s: match %lld is %s: no more events can be added",
                                     d->path, (long long)match_id, db_state_name(state)),
                        err);
    if ((rc = db__check_event(ev, nseats, err)) != 0)
        return db__wend(d, rc, err);
    st = db__stmt(d, DB__Q_APPEND,
                  "INSERT INTO events(match_id, seq, seat, move, legal, rule, reason, points, "
                  "scores, position, time, source, extra) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                  "?9, ?10, coalesce(?11, " DB__NOW_SQL "), ?12, ?13)",
                  err);
    if (!st)
        return db__wend(d, BASE_EDB, err);
    sqlite3_bind_int64(st, 1, match_id);
    sqlite3_bind_int(st, 2, last + 1);
    sqlite3_bind_int(st, 3, ev->seat);
    sqlite3_bind_text(st, 4, ev->move, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, ev->legal);
    db__bind_text(st, 6, ev->legal ? NULL : ev->rule);
    db__bind_text(st, 7, ev->legal ? NULL : ev->reason);
    sqlite3_bind_int(st, 8, ev->points);
    sqlite3_bind_text(st, 9, ev->scores, -1, SQLITE_STATIC);
    db__bind_text(st, 10, ev->position);
    db__bind_text(st, 11, ev->time);
    sqlite3_bind_text(st, 12, db_source_name(ev->source), -1, SQLITE_STATIC);
    db__bind_text(st, 13, ev->extra);
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        char what[96];
        snprintf(what, sizeof what,
                 "cannot store event %d (move, scores and position must be JSON)", last + 1);
        rc = db__fail(d, rc, err, what);
    } else {
        rc = 0;
    }
    sqlite3_reset(st);
    if ((rc = db__wend(d, rc, err)) == 0 && seq)
        *seq = last + 1;
    return rc;
}

/* One field of an event as the text a correction row keeps. */
static void db__field_text(char *buf, size_t cap, int v) { snprintf(buf, cap, "%d", v); }

static bool db__same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One row of a correction (db__record binds it). */
#define DB__INSERT_CORRECTION                                                                      \
    "INSERT INTO corrections(match_id, seq, field, before, after, note) "                         \
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"

/* Begins a write on match_id (db__wbegin_match) whose event seq exists;
 * its number of seats into *nseats.  On error nothing is begun. */
static int db__wbegin_event(db *d, int64_t match_id, int seq, int *nseats, base_err *err)
{
    int rc, state, last;
    if ((rc = db__wbegin_match(d, match_id, &state, nseats, &last, err)) != 0)
        return rc;
    if (seq < 1 || seq > last)
        return db__wend(d,
                        base_err_set(err, BASE_ENOTFOUND, "%s: match %lld has no event %d",
                                     d->path, (long long)match_id, seq),
                        err);
    return 0;
}

static int db__record(db *d, sqlite3_stmt *ins, int64_t match_id, int seq, const char *field,
                      const char *before, const char *after, const char *note, base_err *err)
{
    int rc;
    sqlite3_reset(ins);
    sqlite3_bind_int64(ins, 1, match_id);
    sqlite3_bind_int(ins, 2, seq);
    sqlite3_bind_text(ins, 3, field, -1, SQLITE_STATIC);
    db__bind_text(ins, 4, before);
    db__bind_text(ins, 5, after);
    db__bind_text(ins, 6, note);
    rc = sqlite3_step(ins);
    return rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot record a correction");
}

int db_event_correct(db *d, int64_t match_id, int seq, const db_event *ev, const char *note,
                     base_err *err)
{
    sqlite3_stmt *cur = NULL, *ins = NULL, *upd = NULL;
    int rc, nseats, changed = 0;

    if ((rc = db__wbegin_event(d, match_id, seq, &nseats, err)) != 0)
        return rc;
    if ((rc = db__check_event(ev, nseats, err)) != 0)
        return db__wend(d, rc, err);
    cur = db__prepare(d,
                      "SELECT seat, move, legal, rule, reason, points, scores, position, extra "
                      "FROM events WHERE match_id = ?1 AND seq = ?2",
                      err);
    ins = cur ? db__prepare(d, DB__INSERT_CORRECTION, err) : NULL;
    upd = ins ? db__prepare(d,
                            "UPDATE events SET seat = ?3, move = ?4, legal = ?5, rule = ?6, "
                            "reason = ?7, points = ?8, scores = ?9, position = ?10, extra = ?11 WHERE "
                            "match_id = ?1 AND seq = ?2",
                            err)
              : NULL;
    if (!upd) {
        rc = BASE_EDB;
        goto done;
    }
    sqlite3_bind_int64(cur, 1, match_id);
    sqlite3_bind_int(cur, 2, seq);
    if ((rc = sqlite3_step(cur)) != SQLITE_ROW) {
        rc = db__fail(d, rc, err, "cannot read the event to correct");
        goto done;
    }
    rc = 0;
    {
        const char *rule = ev->legal ? NULL : ev->rule, *reason = ev->legal ? NULL : ev->reason;
        const char *texts[][3] = {
            {"move", (const char *)sqlite3_column_text(cur, 1), ev->move},
            {"rule", (const char *)sqlite3_column_text(cur, 3), rule},
            {"reason", (const char *)sqlite3_column_text(cur, 4), reason},
            {"scores", (const char *)sqlite3_column_text(cur, 6), ev->scores},
            {"position", (const char *)sqlite3_column_text(cur, 7), ev->position},
            {"extra", (const char *)sqlite3_column_text(cur, 8), ev->extra},
        };
        const struct {
            const char *field;
            int before, after;
        } ints[] = {
            {"seat", sqlite3_column_int(cur, 0), ev->seat},
            {"legal", sqlite3_column_int(cur, 2), ev->legal ? 1 : 0},
            {"points", sqlite3_column_int(cur, 5), ev->points},
        };
        for (size_t i = 0; rc == 0 && i < sizeof ints / sizeof ints[0]; i++) {
            char b[16], a[16];
            if (ints[i].before == ints[i].after)
                continue;
            db__field_text(b, sizeof b, ints[i].before);
            db__field_text(a, sizeof a, ints[i].after);
            rc = db__record(d, ins, match_id, seq, ints[i].field, b, a, note, err);
            changed++;
        }
        for (size_t i = 0; rc == 0 && i < sizeof texts / sizeof texts[0]; i++) {
            if (db__same(texts[i][1], texts[i][2]))
                continue;
            rc = db__record(d, ins, match_id, seq, texts[i][0], texts[i][1], texts[i][2], note,
                            err);
            changed++;
        }
    }
    sqlite3_reset(cur); /* its column texts were needed until here */
    if (rc == 0 && changed > 0) {
        sqlite3_bind_int64(upd, 1, match_id);
        sqlite3_bind_int(upd, 2, seq);
        sqlite3_bind_int(upd, 3, ev->seat);
        sqlite3_bind_text(upd, 4, ev->move, -1, SQLITE_STATIC);
        sqlite3_bind_int(upd, 5, ev->legal);
        db__bind_text(upd, 6, ev->legal ? NULL : ev->rule);
        db__bind_text(upd, 7, ev->legal ? NULL : ev->reason);
        sqlite3_bind_int(upd, 8, ev->points);
        sqlite3_bind_text(upd, 9, ev->scores, -1, SQLITE_STATIC);
        db__bind_text(upd, 10, ev->position);
        db__bind_text(upd, 11, ev->extra);
        if ((rc = sqlite3_step(upd)) != SQLITE_DONE)
            rc = db__fail(d, rc, err, "cannot correct the event (values must be JSON)");
        else
            rc = 0;
    }
done:
    sqlite3_finalize(cur);
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    rc = db__wend(d, rc, err);
    return rc == 0 ? changed : rc;
}

int db_correction_add(db *d, int64_t match_id, int seq, const char *field, const char *before,
                      const char *after, const char *note, base_err *err)
{
    sqlite3_stmt *ins = NULL;
    int rc, nseats;
    if (!field || !*field)
        return base_err_set(err, BASE_EINVAL, "a correction needs the field it corrects");
    if ((rc = db__wbegin_event(d, match_id, seq, &nseats, err)) != 0)
        return rc;
    ins = db__prepare(d, DB__INSERT_CORRECTION, err);
    rc = ins ? db__record(d, ins, match_id, seq, field, before, after, note, err) : BASE_EDB;
    sqlite3_finalize(ins);
    return db__wend(d, rc, err);
}

int db_corrections_list(db *d, int64_t match_id, db_correction_fn fn, void *ctx, base_err *err)
{
    sqlite3_stmt *st = db__prepare(d,
                                   "SELECT id, seq, field, before, after, time, note FROM "
                                   "corrections WHERE match_id = ?1 ORDER BY id",
                                   err);
    int rc;
    if (!st)
        return BASE_EDB;
    sqlite3_bind_int64(st, 1, match_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_correction c = {
            .id = sqlite3_column_int64(st, 0),
            .seq = sqlite3_column_int(st, 1),
            .field = (const char *)sqlite3_column_text(st, 2),
            .before = (const char *)sqlite3_column_text(st, 3),
            .after = (const char *)sqlite3_column_text(st, 4),
            .time = (const char *)sqlite3_column_text(st, 5),
            .note = (const char *)sqlite3_column_text(st, 6),
        };
        if (fn(ctx, &c) != 0) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        rc = db__fail(d, rc, err, "cannot list corrections");
    else
        rc = 0;
    sqlite3_finalize(st);
    return rc;
}

/* ---- snapshots ---- */

static int db__event_exists(db *d, int64_t match_id, int seq, base_err *err)
{
    sqlite3_stmt *st = db__prepare(d, "SELECT 1 FROM events WHERE match_id = ?1 AND seq = ?2",
                                   err);
    int rc;
    if (!st)
        return BASE_EDB;
    sqlite3_bind_int64(st, 1, match_id);
    sqlite3_bind_int(st, 2, seq);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return base_err_set(err, BASE_ENOTFOUND, "%s: match %lld has no event %d", d->path,
                            (long long)match_id, seq);
    return db__fail(d, rc, err, "cannot read the event");
}

int db_snapshot_put(db *d, int64_t match_id, int seq, const void *jpeg, size_t len,
                    base_err *err)
{
    const unsigned char *b = jpeg;
    sqlite3_stmt *st;
    int rc;

    if (!jpeg || len < 4 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF)
        return base_err_set(err, BASE_EINVAL,
                            "a snapshot must be JPEG bytes (starting FF D8 FF)");
    if (len > 0x7fffffff)
        return base_err_set(err, BASE_ERANGE, "a snapshot of %zu bytes is too large", len);
    if ((rc = db__wbegin(d, err)) != 0)
        return rc;
    if ((rc = db__event_exists(d, match_id, seq, err)) != 0)
        return db__wend(d, rc, err);
    if (!(st = db__prepare(d, "INSERT OR REPLACE INTO snapshots(match_id, seq, jpeg) VALUES(?1, "
                              "?2, ?3)",
                           err)))
        return db__wend(d, BASE_EDB, err);
    sqlite3_bind_int64(st, 1, match_id);
    sqlite3_bind_int(st, 2, seq);
    sqlite3_bind_blob(st, 3, jpeg, (int)len, SQLITE_STATIC);
    rc = sqlite3_step(st);
    rc = rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot store the snapshot");
    sqlite3_finalize(st);
    return db__wend(d, rc, err);
}

int db_snapshot_get(db *d, int64_t match_id, int seq, void **jpeg, size_t *len, base_err *err)
{
    sqlite3_stmt *st = db__prepare(
        d, "SELECT jpeg FROM snapshots WHERE match_id = ?1 AND seq = ?2", err);
    int rc;
    *jpeg = NULL;
    *len = 0;
    if (!st)
        return BASE_EDB;
    sqlite3_bind_int64(st, 1, match_id);
    sqlite3_bind_int(st, 2, seq);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        const void *b = sqlite3_column_blob(st, 0);
        if (!(*jpeg = malloc(n ? n : 1))) {
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
        } else {
            memcpy(*jpeg, b, n);
            *len = n;
            rc = 0;
        }
    } else if (rc == SQLITE_DONE) {
        rc = base_err_set(err, BASE_ENOTFOUND, "%s: event %d of match %lld has no snapshot",
                          d->path, seq, (long long)match_id);
    } else {
        rc = db__fail(d, rc, err, "cannot read the snapshot");
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- reading matches ---- */

#define DB__INFO_COLS                                                                       \
    "SELECT m.id, m.game, m.state, m.started, coalesce(m.ended, ''), m.options, m.header, " \
    "(SELECT count(*) FROM events e WHERE e.match_id = m.id), "                             \
    "(SELECT scores FROM events e WHERE e.match_id = m.id ORDER BY seq DESC LIMIT 1) "      \
    "FROM matches m "

/* Fills the fixed part of info from a DB__INFO_COLS row and its seats. */
static int db__info_row(db *d, sqlite3_stmt *row, db_match_info *m, base_err *err)
{
    sqlite3_stmt *st;
    int rc;

    memset(m, 0, sizeof *m);
    m->id = sqlite3_column_int64(row, 0);
    db__copy(m->game, sizeof m->game, sqlite3_column_text(row, 1));
    m->state = db__state_from_name((const char *)sqlite3_column_text(row, 2));
    db__copy(m->started, sizeof m->started, sqlite3_column_text(row, 3));
    db__copy(m->ended, sizeof m->ended, sqlite3_column_text(row, 4));
    m->options = (const char *)sqlite3_column_text(row, 5);
    m->header = (const char *)sqlite3_column_text(row, 6);
    m->nevents = sqlite3_column_int(row, 7);
    m->last_scores = (const char *)sqlite3_column_text(row, 8);
    if (!(st = db__stmt(d, DB__Q_SEATS,
                        "SELECT s.seat, p.name, s.score, s.winner FROM seats s JOIN players p ON "
                        "p.id = s.player_id WHERE s.match_id = ?1 ORDER BY s.seat",
                        err)))
        return BASE_EDB;
    sqlite3_bind_int64(st, 1, m->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->nseats < DB_MAX_SEATS) {
        db_seat *s = &m->seats[m->nseats++];
        db__copy(s->name, sizeof s->name, sqlite3_column_text(st, 1));
        s->has_score = sqlite3_column_type(st, 2) != SQLITE_NULL;
        s->score = sqlite3_column_int(st, 2);
        s->winner = sqlite3_column_int(st, 3) != 0;
    }
    rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot read seats");
    sqlite3_reset(st);
    return rc;
}

int db_matches_list(db *d, const db_filter *f, db_match_fn fn, void *ctx, base_err *err)
{
    sqlite3_stmt *st = db__prepare(
        d,
        DB__INFO_COLS "WHERE (?1 IS NULL OR m.game = ?1) AND (?2 IS NULL OR m.state = ?2) AND "
                      "(?3 IS NULL OR EXISTS (SELECT 1 FROM seats s JOIN players p ON p.id = "
                      "s.player_id WHERE s.match_id = m.id AND p.name = ?3)) "
                      "ORDER BY m.started DESC, m.id DESC",
        err);
    int rc;
    if (!st)
        return BASE_EDB;
    if (f) {
        db__bind_text(st, 1, f->game);
        db__bind_text(st, 2, f->state >= 0 ? db_state_name(f->state) : NULL);
        db__bind_text(st, 3, f->player);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_match_info m;
        if ((rc = db__info_row(d, st, &m, err)) != 0) {
            sqlite3_finalize(st);
            return rc;
        }
        if (fn(ctx, &m) != 0) {
            rc = SQLITE_DONE;
            break;
        }
    }
    rc = rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot list matches");
    sqlite3_finalize(st);
    return rc;
}

static void db__event_free_strings(db_event *e)
{
    free((char *)e->move);
    free((char *)e->rule);
    free((char *)e->reason);
    free((char *)e->scores);
    free((char *)e->position);
    free((char *)e->time);
    free((char *)e->extra);
}

void db_match_free(db_match *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nevents; i++)
        db__event_free_strings(&m->events[i]);
    free(m->events);
    free((char *)m->info.options);
    free((char *)m->info.header);
    free((char *)m->info.last_scores);
    free(m);
}

int db_match_load(db *d, int64_t match_id, db_match **out, base_err *err)
{
    sqlite3_stmt *st;
    db_match *m;
    int rc, cap;

    *out = NULL;
    if (!(m = calloc(1, sizeof *m)))
        return base_err_set(err, BASE_ENOMEM, "out of memory");
    /* One read transaction, so info and events are one consistent view
     * even while a writer appends. */
    if (!d->in_tx && sqlite3_get_autocommit(d->conn) &&
        (rc = db__exec(d, "BEGIN", err, "cannot start reading")) != 0) {
        free(m);
        return rc;
    }
    if (!(st = db__stmt(d, DB__Q_INFO, DB__INFO_COLS "WHERE m.id = ?1", err))) {
        rc = BASE_EDB;
        goto done;
    }
    sqlite3_bind_int64(st, 1, match_id);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        rc = rc == SQLITE_DONE ? base_err_set(err, BASE_ENOTFOUND, "%s: no match %lld", d->path,
                                              (long long)match_id)
                               : db__fail(d, rc, err, "cannot read the match");
        sqlite3_reset(st);
        goto done;
    }
    rc = db__info_row(d, st, &m->info, err);
    if (rc == 0) {
        m->info.options = db__strdup(m->info.options);
        m->info.header = db__strdup(m->info.header);
        m->info.last_scores = db__strdup(m->info.last_scores);
        if (!m->info.options || !m->info.header)
            rc = base_err_set(err, BASE_ENOMEM, "out of memory");
    }
    sqlite3_reset(st);
    if (rc != 0)
        goto done;
    cap = m->info.nevents;
    if (cap > 0 && !(m->events = calloc((size_t)cap, sizeof *m->events))) {
        rc = base_err_set(err, BASE_ENOMEM, "out of memory");
        goto done;
    }
    if (!(st = db__stmt(d, DB__Q_EVENTS,
                        "SELECT seq, seat, move, legal, rule, reason, points, scores, position, "
                        "time, source, extra FROM events WHERE match_id = ?1 ORDER BY seq",
                        err))) {
        rc = BASE_EDB;
        goto done;
    }
    sqlite3_bind_int64(st, 1, match_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->nevents < cap) {
        db_event *e = &m->events[m->nevents++];
        e->seq = sqlite3_column_int(st, 0);
        e->seat = sqlite3_column_int(st, 1);
        e->move = db__strdup((const char *)sqlite3_column_text(st, 2));
        e->legal = sqlite3_column_int(st, 3) != 0;
        e->rule = db__strdup((const char *)sqlite3_column_text(st, 4));
        e->reason = db__strdup((const char *)sqlite3_column_text(st, 5));
        e->points = sqlite3_column_int(st, 6);
        e->scores = db__strdup((const char *)sqlite3_column_text(st, 7));
        e->position = db__strdup((const char *)sqlite3_column_text(st, 8));
        e->time = db__strdup((const char *)sqlite3_column_text(st, 9));
        e->source = db_source_from_name((const char *)sqlite3_column_text(st, 10));
        e->extra = db__strdup((const char *)sqlite3_column_text(st, 11));
        if (!e->move || !e->scores || !e->time) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    rc = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db__fail(d, rc, err, "cannot read events");
    sqlite3_reset(st);
done:
    if (!d->in_tx && !sqlite3_get_autocommit(d->conn))
        sqlite3_exec(d->conn, "COMMIT", NULL, NULL, NULL);
    if (rc != 0) {
        db_match_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

/* ---- statistics ---- */

int db_stats(db *d, const char *player, const char *game, db_stats_fn fn, void *ctx,
             base_err *err)
{
    sqlite3_stmt *st = db__prepare(
        d,
        "SELECT p.name, sum(m.state = 'finished'), sum(m.state = 'finished' AND s.winner = 1), "
        "sum(m.state = 'live'), coalesce(avg(CASE WHEN m.state = 'finished' THEN s.score END), "
        "0) FROM players p JOIN seats s ON s.player_id = p.id JOIN matches m ON m.id = "
        "s.match_id WHERE (?1 IS NULL OR p.name = ?1) AND (?2 IS NULL OR m.game = ?2) GROUP BY "
        "p.id ORDER BY p.name",
        err);
    int rc;
    if (!st)
        return BASE_EDB;
    db__bind_text(st, 1, player);
    db__bind_text(st, 2, game);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_player_stats s = {
            .name = (const char *)sqlite3_column_text(st, 0),
            .games = sqlite3_column_int(st, 1),
            .wins = sqlite3_column_int(st, 2),
            .live = sqlite3_column_int(st, 3),
            .average = sqlite3_column_double(st, 4),
        };
        if (fn(ctx, &s) != 0) {
            rc = SQLITE_DONE;
            break;
        }
    }
    rc = rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot compute statistics");
    sqlite3_finalize(st);
    return rc;
}

/* ---- calibration profiles ---- */

int db_profile_put(db *d, const char *name, const char *kind, const char *data_json,
                   base_err *err)
{
    sqlite3_stmt *st;
    int rc;
    if (!name || !*name || !kind || !*kind || !data_json)
        return base_err_set(err, BASE_EINVAL, "a profile needs a name, a kind and JSON data");
    if ((rc = db__wbegin(d, err)) != 0)
        return rc;
    if (!(st = db__prepare(d,
                           "INSERT INTO profiles(name, kind, data) VALUES(?1, ?2, ?3) ON "
                           "CONFLICT(name) DO UPDATE SET kind = excluded.kind, data = "
                           "excluded.data, time = " DB__NOW_SQL,
                           err)))
        return db__wend(d, BASE_EDB, err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, data_json, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        char what[128];
        snprintf(what, sizeof what, "cannot store profile '%.60s' (its data must be JSON)",
                 name);
        rc = db__fail(d, rc, err, what);
    } else {
        rc = 0;
    }
    sqlite3_finalize(st);
    return db__wend(d, rc, err);
}

int db_profile_get(db *d, const char *name, char **kind, char **data_json, base_err *err)
{
    sqlite3_stmt *st = db__prepare(d, "SELECT kind, data FROM profiles WHERE name = ?1", err);
    int rc;
    if (kind)
        *kind = NULL;
    *data_json = NULL;
    if (!st)
        return BASE_EDB;
    db__bind_text(st, 1, name);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *data_json = db__strdup((const char *)sqlite3_column_text(st, 1));
        if (kind)
            *kind = db__strdup((const char *)sqlite3_column_text(st, 0));
        rc = *data_json && (!kind || *kind) ? 0 : base_err_set(err, BASE_ENOMEM, "out of memory");
    } else if (rc == SQLITE_DONE) {
        rc = base_err_set(err, BASE_ENOTFOUND, "%s: no calibration profile named '%s'", d->path,
                          name ? name : "");
    } else {
        rc = db__fail(d, rc, err, "cannot read the profile");
    }
    sqlite3_finalize(st);
    if (rc != 0) {
        if (kind) {
            free(*kind);
            *kind = NULL;
        }
        free(*data_json);
        *data_json = NULL;
    }
    return rc;
}

int db_profile_list(db *d, const char *kind, db_profile_fn fn, void *ctx, base_err *err)
{
    sqlite3_stmt *st = db__prepare(
        d, "SELECT name, kind, time FROM profiles WHERE ?1 IS NULL OR kind = ?1 ORDER BY name",
        err);
    int rc;
    if (!st)
        return BASE_EDB;
    db__bind_text(st, 1, kind);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (fn(ctx, (const char *)sqlite3_column_text(st, 0),
               (const char *)sqlite3_column_text(st, 1),
               (const char *)sqlite3_column_text(st, 2)) != 0) {
            rc = SQLITE_DONE;
            break;
        }
    }
    rc = rc == SQLITE_DONE ? 0 : db__fail(d, rc, err, "cannot list profiles");
    sqlite3_finalize(st);
    return rc;
}
