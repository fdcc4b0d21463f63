/* db/schema.h: the schema's migration steps (internal to db/). */
#ifndef TABLECAM_DB_SCHEMA_H
#define TABLECAM_DB_SCHEMA_H

#include <sqlite3.h>

#include "db.h"

/* Brings a database at version `from` (0: empty) to DB_SCHEMA_VERSION.
 * The caller holds a write transaction; on failure it rolls back.  err
 * names the step that failed. */
int db__migrate(sqlite3 *conn, int from, const char *path, base_err *err);

#endif
