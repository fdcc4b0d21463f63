/* referee/internal.h: what the referee's own files share and nobody else
 * needs. */
#ifndef TABLECAM_REFEREE_INTERNAL_H
#define TABLECAM_REFEREE_INTERNAL_H

#include "referee.h"

#define REF__CERTAIN 0.9f  /* pieces read at least this sure are not second-guessed */
#define REF__ALT_FLOOR 0.2 /* an alternative reading this unlikely is not taken */

/* The same piece (kind, owner, shape), wherever it lies. */
bool ref__same_piece(const rules_piece *a, const rules_piece *b);

#endif
