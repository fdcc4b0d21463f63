/* db/schema.c: the schema, as a list of migration steps.
 *
 * Step k takes a database from version k-1 to version k; PRAGMA
 * user_version holds the version reached.  A shipped step never changes
 * (databases in the field were made by it): a new version appends a step.
 * Every table is STRICT, so a wrong type is an error and not a silent
 * conversion; times are ISO 8601 UTC text with milliseconds. */
#include "schema.h"

#include <stdio.h>

#define DB__NOW "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"

/* v1: the core: who played what, and every event with its verdict. */
static const char db__step1[] =
    "CREATE TABLE players("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE CHECK(length(name) BETWEEN 1 AND 63),"
    " created TEXT NOT NULL DEFAULT " DB__NOW ") STRICT;"
    "CREATE TABLE matches("
    " id INTEGER PRIMARY KEY,"
    " game TEXT NOT NULL,"
    " options TEXT NOT NULL DEFAULT '{}' CHECK(json_valid(options)),"
    " header TEXT NOT NULL CHECK(json_valid(header)),"
    " started TEXT NOT NULL DEFAULT " DB__NOW ","
    " ended TEXT,"
    " state TEXT NOT NULL DEFAULT 'live' CHECK(state IN ('live','finished','abandoned'))"
    ") STRICT;"
    "CREATE TABLE seats("
    " match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,"
    " seat INTEGER NOT NULL CHECK(seat >= 0),"
    " player_id INTEGER NOT NULL REFERENCES players(id),"
    " score INTEGER,"
    " winner INTEGER NOT NULL DEFAULT 0 CHECK(winner IN (0,1)),"
    " PRIMARY KEY(match_id, seat)) STRICT;"
    "CREATE TABLE events("
    " match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL CHECK(seq >= 1),"
    " seat INTEGER NOT NULL,"
    " move TEXT NOT NULL CHECK(json_valid(move)),"
    " legal INTEGER NOT NULL CHECK(legal IN (0,1)),"
    " rule TEXT,"
    " reason TEXT,"
    " points INTEGER NOT NULL DEFAULT 0,"
    " scores TEXT NOT NULL CHECK(json_valid(scores)),"
    " position TEXT CHECK(position IS NULL OR json_valid(position)),"
    " time TEXT NOT NULL DEFAULT " DB__NOW ","
    " source TEXT NOT NULL CHECK(source IN ('camera','typed','imported','correction')),"
    " PRIMARY KEY(match_id, seq),"
    " FOREIGN KEY(match_id, seat) REFERENCES seats(match_id, seat)) STRICT;"
    "CREATE TABLE snapshots("
    " match_id INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " jpeg BLOB NOT NULL,"
    " PRIMARY KEY(match_id, seq),"
    " FOREIGN KEY(match_id, seq) REFERENCES events(match_id, seq) ON DELETE CASCADE) STRICT;";

/* v2: what v1 could not say: a referee's decision changed after the fact,
 * and the calibration that the camera was using. */
static const char db__step2[] =
    "CREATE TABLE corrections("
    " id INTEGER PRIMARY KEY,"
    " match_id INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " field TEXT NOT NULL,"
    " before TEXT,"
    " after TEXT,"
    " time TEXT NOT NULL DEFAULT " DB__NOW ","
    " note TEXT,"
    " FOREIGN KEY(match_id, seq) REFERENCES events(match_id, seq) ON DELETE CASCADE) STRICT;"
    "CREATE INDEX corrections_by_event ON corrections(match_id, seq);"
    "CREATE TABLE profiles("
    " name TEXT PRIMARY KEY,"
    " kind TEXT NOT NULL,"
    " data TEXT NOT NULL CHECK(json_valid(data)),"
    " time TEXT NOT NULL DEFAULT " DB__NOW ") STRICT;";

/* v3: what review needs: indexes for its queries (matches of a player,
 * of a game, live ones to resume), which v1 answered by scanning every
 * match, and the verdict's game-specific keys (a note, captured cards, an
 * exited piece), which v1 dropped. */
static const char db__step3[] =
    "ALTER TABLE events ADD COLUMN extra TEXT CHECK(extra IS NULL OR json_valid(extra));"
    "CREATE INDEX seats_by_player ON seats(player_id);"
    "CREATE INDEX matches_by_game ON matches(game, started);"
    "CREATE INDEX matches_by_state ON matches(state);";

static const char *const db__steps[] = {db__step1, db__step2, db__step3};
#define DB__NSTEPS ((int)(sizeof db__steps / sizeof db__steps[0]))

_Static_assert(DB__NSTEPS == DB_SCHEMA_VERSION, "one migration step per schema version");

int db__migrate(sqlite3 *conn, int from, const char *path, base_err *err)
{
    char sql[64];
    if (from == 0) {
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d;", DB_APPLICATION_ID);
        if (sqlite3_exec(conn, sql, NULL, NULL, NULL) != SQLITE_OK)
            return base_err_set(err, BASE_EDB, "%s: cannot set the application id: %s", path,
                                sqlite3_errmsg(conn));
    }
    for (int v = from + 1; v <= DB__NSTEPS; v++) {
        if (sqlite3_exec(conn, db__steps[v - 1], NULL, NULL, NULL) != SQLITE_OK)
            return base_err_set(err, BASE_EDB, "%s: migration to schema version %d failed: %s",
                                path, v, sqlite3_errmsg(conn));
    }
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d;", DB__NSTEPS);
    if (sqlite3_exec(conn, sql, NULL, NULL, NULL) != SQLITE_OK)
        return base_err_set(err, BASE_EDB, "%s: cannot record the schema version: %s", path,
                            sqlite3_errmsg(conn));
    return 0;
}
