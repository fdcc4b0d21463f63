/* referee: the live loop.  Waits for a still table, infers the move from
 * the change, asks rules/, records in db/, raises events for ui/. */
#ifndef TABLECAM_REFEREE_H
#define TABLECAM_REFEREE_H

#include "base.h"

#endif
