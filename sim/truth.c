/* sim/truth.c: reading a truth line back (docs/sim.md), for the programs
 * that compare what tablecam saw with what the simulator did. */
#include "sim.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

int sim_truth_read(const char *game, const char *truth_json, sim_truth *out, base_err *err)
{
    cJSON *j, *m;
    int rc = 0;
    memset(out, 0, sizeof *out);
    j = cJSON_Parse(truth_json ? truth_json : "");
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return base_err_set(err, BASE_EPARSE, "truth line: not a JSON object");
    }
    out->stable = cJSON_IsTrue(cJSON_GetObjectItem(j, "stable"));
    m = cJSON_GetObjectItem(j, "move");
    if (cJSON_IsObject(m)) {
        const cJSON *rule = cJSON_GetObjectItem(m, "rule");
        const cJSON *points = cJSON_GetObjectItem(m, "points");
        rc = rules_event_from_json(game, cJSON_GetObjectItem(m, "event"), &out->player,
                                   &out->move, err);
        if (rc == 0) {
            out->has_move = true;
            out->legal = cJSON_IsTrue(cJSON_GetObjectItem(m, "legal"));
            out->points = cJSON_IsNumber(points) ? points->valueint : 0;
            if (cJSON_IsString(rule))
                snprintf(out->rule, sizeof out->rule, "%s", rule->valuestring);
        }
    }
    cJSON_Delete(j);
    return rc;
}
