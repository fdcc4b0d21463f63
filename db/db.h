/* db: the SQLite match store.  Schema with migrations, matches, moves,
 * events, key-frame snapshots, review queries, export.  Knows nothing of
 * images beyond the JPEG bytes it keeps. */
#ifndef TABLECAM_DB_H
#define TABLECAM_DB_H

#include "base.h"

#endif
