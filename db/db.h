/* db: the SQLite match store.  Every match tablecam referees is kept here,
 * move by move, so players can review any past game and organisers can see
 * results: players, matches, seats, events (move, verdict, scores and the
 * position after it), key-frame snapshots (JPEG bytes, never decoded),
 * corrections and calibration profiles.
 *
 * The database is one file in WAL mode, so readers (the web app, another
 * `tablecam` process) read while the referee writes.  A move is durable when
 * db_event_append() returns: it is committed and synced (synchronous=FULL).
 * The schema migrates forward through PRAGMA user_version; a file written by
 * a newer tablecam is refused, and a file that is not a tablecam database
 * (text, corrupt, another program's SQLite file) is refused before anything
 * is written to it.  See docs/database.md.
 *
 * A handle belongs to one thread at a time; a second thread or process
 * opens its own.
 *
 * db knows nothing of the rules: moves, scores and positions are JSON text
 * made and read by rules/ (FORMATS.md 1-3); db stores and returns them. */
#ifndef TABLECAM_DB_H
#define TABLECAM_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

/* The schema version this code writes and reads. */
#define DB_SCHEMA_VERSION 3
/* PRAGMA application_id of a tablecam database ("TCam"). */
#define DB_APPLICATION_ID 0x5443616d

#define DB_MAX_SEATS 8
#define DB_NAME_MAX 64 /* bytes of a player name, with its NUL */

typedef struct db db;

/* ---- opening ---- */

enum db_open_flags {
    DB_OPEN_READONLY = 1, /* a reader: never writes, never migrates */
    DB_OPEN_CREATE = 2    /* create the file when it does not exist */
};

/* Opens the store at path.  Without DB_OPEN_READONLY the file is checked
 * (header, schema, PRAGMA quick_check) through a read-only connection
 * first, then opened for writing and migrated to DB_SCHEMA_VERSION in one
 * transaction.  Errors (with err naming the file):
 *   BASE_ENOTFOUND  no file and no DB_OPEN_CREATE
 *   BASE_EDB        not a SQLite database, corrupt, or another program's
 *                   database: the file is left byte for byte as it was
 *   BASE_EVERSION   written by a newer tablecam (both versions named), or
 *                   a reader opening an older file that needs migrating
 *   BASE_EBUSY      another process holds the write lock too long
 * On failure *out is NULL. */
int db_open(const char *path, int flags, base_err *err, db **out);
void db_close(db *d);

/* The schema version of the open file (DB_SCHEMA_VERSION once migrated). */
int db_schema_version(const db *d);

/* Groups several writes in one transaction (import: all or nothing).
 * Inside it, the single-call writers below do not commit on their own;
 * db_commit() commits and syncs, db_rollback() undoes everything since
 * db_begin().  Nesting is not allowed (BASE_ESTATE). */
int db_begin(db *d, base_err *err);
int db_commit(db *d, base_err *err);
void db_rollback(db *d);

/* ---- matches ---- */

enum db_state { DB_LIVE = 0, DB_FINISHED = 1, DB_ABANDONED = 2 };
/* "live", "finished", "abandoned"; NULL when out of range. */
const char *db_state_name(int state);

/* Starts a match: game id, options JSON (NULL for {}), the game record's
 * header line (NULL: built from game and players), and the players in seat
 * order (1..DB_MAX_SEATS names, created on first use).  started is an ISO
 * 8601 UTC time or NULL for now. */
int db_match_new(db *d, const char *game, const char *options_json, const char *header_json,
                 const char *const *players, int nplayers, const char *started,
                 int64_t *match_id, base_err *err);

/* Ends a live match: final scores per seat (n = seats), winners as a bit
 * mask (bit i: seat i won; ties set several bits).  BASE_ESTATE when the
 * match is not live. */
int db_match_finish(db *d, int64_t match_id, const int *scores, int n, unsigned winners,
                    base_err *err);
int db_match_abandon(db *d, int64_t match_id, base_err *err);

/* ---- events ---- */

enum db_source { DB_SRC_CAMERA = 0, DB_SRC_TYPED, DB_SRC_IMPORTED, DB_SRC_CORRECTION };
/* "camera", "typed", "imported", "correction"; NULL when out of range. */
const char *db_source_name(int source);
int db_source_from_name(const char *name); /* -1 when unknown */

/* One event: what was played and what the referee said.  Strings are
 * borrowed on input; in a loaded db_match they live as long as it does. */
typedef struct db_event {
    int seq;              /* 1-based position in the match */
    int seat;             /* the mover */
    const char *move;     /* JSON move object (FORMATS.md 2) */
    bool legal;
    const char *rule;     /* stable rule id when illegal, else NULL */
    const char *reason;   /* sentence when illegal, else NULL */
    int points;
    const char *scores;   /* JSON array of scores after the event */
    const char *position; /* JSON position after the event, may be NULL */
    const char *extra;    /* JSON object of the verdict's other keys ("note",
                             "captured", ...), may be NULL */
    const char *time;     /* ISO 8601 UTC; NULL on append means now */
    int source;           /* enum db_source */
} db_event;

/* Appends ev as the next event of a live match (ev->seq is ignored; the
 * new seq goes to *seq when seq is not NULL).  Outside db_begin() it
 * returns only once the event is committed and synced to disk. */
int db_event_append(db *d, int64_t match_id, const db_event *ev, int *seq, base_err *err);

/* Changes event seq of a match to the values of ev (seat, move, legal,
 * rule, reason, points, scores, position, extra) and records one correction row
 * per field that changed (from, to, when, note).  Returns the number of
 * fields changed (0: nothing differed, nothing recorded) or an error. */
int db_event_correct(db *d, int64_t match_id, int seq, const db_event *ev, const char *note,
                     base_err *err);

/* Records a correction of event seq that changes none of its fields: what
 * the players said of a reading (field "piece (13,13)", before "purple
 * diamond (read at 0.55)", after "purple clover"), kept beside the event
 * it settled.  Durable when it returns. */
int db_correction_add(db *d, int64_t match_id, int seq, const char *field, const char *before,
                      const char *after, const char *note, base_err *err);

typedef struct db_correction {
    int64_t id;
    int seq;
    const char *field; /* "move", "legal", "scores", ... */
    const char *before, *after;
    const char *time, *note;
} db_correction;
typedef int (*db_correction_fn)(void *ctx, const db_correction *c);
/* Calls fn for every correction of a match, oldest first; fn returns
 * non-zero to stop. */
int db_corrections_list(db *d, int64_t match_id, db_correction_fn fn, void *ctx, base_err *err);

/* ---- snapshots: the key frame of an event, as JPEG bytes ---- */

/* Stores (or replaces) the key frame of an event; the bytes must start
 * with a JPEG SOI marker (FF D8 FF). */
int db_snapshot_put(db *d, int64_t match_id, int seq, const void *jpeg, size_t len,
                    base_err *err);
/* *jpeg receives a malloc'ed copy (free() it); BASE_ENOTFOUND if none. */
int db_snapshot_get(db *d, int64_t match_id, int seq, void **jpeg, size_t *len, base_err *err);

/* ---- reading matches ---- */

typedef struct db_seat {
    char name[DB_NAME_MAX];
    bool has_score; /* a finished match has final scores */
    int score;
    bool winner;
} db_seat;

typedef struct db_match_info {
    int64_t id;
    char game[32];
    int state;           /* enum db_state */
    char started[32];
    char ended[32];      /* "" while live */
    int nseats;
    db_seat seats[DB_MAX_SEATS];
    int nevents;
    const char *options;     /* JSON */
    const char *header;      /* JSON: the record's first line */
    const char *last_scores; /* JSON scores after the last event, or NULL */
} db_match_info;

typedef struct db_filter {
    const char *game;   /* NULL: any */
    const char *player; /* NULL: any; else matches where this name sits */
    int state;          /* -1: any, else enum db_state */
} db_filter;

typedef int (*db_match_fn)(void *ctx, const db_match_info *m);
/* Calls fn for every match that passes f (NULL: all), newest first.  The
 * strings in m live until fn returns. */
int db_matches_list(db *d, const db_filter *f, db_match_fn fn, void *ctx, base_err *err);

/* A whole match for replay or resume: its info and its events in order. */
typedef struct db_match {
    db_match_info info;
    int nevents;
    db_event *events; /* events[i].seq == i + 1 */
} db_match;

/* Loads a match; BASE_ENOTFOUND when there is none with that id.  Free
 * with db_match_free(). */
int db_match_load(db *d, int64_t match_id, db_match **out, base_err *err);
void db_match_free(db_match *m);

/* ---- statistics ---- */

typedef struct db_player_stats {
    const char *name;
    int games;   /* finished matches played */
    int wins;    /* of those, won (a shared win counts) */
    int live;    /* matches still being played */
    double average; /* mean final score over the finished matches */
} db_player_stats;
typedef int (*db_stats_fn)(void *ctx, const db_player_stats *s);
/* Per player, by name; player and game (NULL: all) narrow it down. */
int db_stats(db *d, const char *player, const char *game, db_stats_fn fn, void *ctx,
             base_err *err);

/* ---- calibration profiles: named JSON documents ---- */

/* Stores (or replaces) a profile; kind says what it calibrates ("mat",
 * "camera", ...), data is JSON text (checked with SQLite's json_valid). */
int db_profile_put(db *d, const char *name, const char *kind, const char *data_json,
                   base_err *err);
/* *kind (may be NULL) and *data receive malloc'ed strings (free() them). */
int db_profile_get(db *d, const char *name, char **kind, char **data_json, base_err *err);
typedef int (*db_profile_fn)(void *ctx, const char *name, const char *kind, const char *time);
/* Every profile (of a kind, when kind is not NULL), by name. */
int db_profile_list(db *d, const char *kind, db_profile_fn fn, void *ctx, base_err *err);

#endif
