/* ui/cmd_recognize.c: `tablecam recognize --game qwirkle [--mat MAT]
 * [--profile NAME|FILE] [--pieces NAME|FILE] [--lens NAME|FILE] [--db FILE] IMAGE` reads one
 * photograph of the table and prints the position on it (FORMATS.md 4):
 *   {"game":"qwirkle","pieces":[{"x":0,"y":0,"color":"red","shape":"star8",
 *    "conf":0.93},...],"mat":{"found":[0,1,2,3]}}
 * Cells are counted from the top-left piece (positions are equal up to a
 * translation; cubed's axial cells in the lattice's frame, its turn the one
 * nearest the mat's x, so also up to a turn by 60 degrees), cube2's are the
 * board's squares; "hand":true is added when a hand is over the play area,
 * whose pieces are then not to be trusted. */
#include "ui.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "calib.h"
#include "referee.h"

int ui_cmd_recognize(int argc, char **argv)
{
    const ui_command *self = ui_command_find("recognize");
    const char *game = NULL, *mat = NULL, *profile = NULL, *lensname = NULL, *pieces = NULL;
    const char *dbpath = "tablecam.db", *pos[1];
    ui_opt opts[] = {{"--game", UI_OPT_VALUE, &game, NULL},
                     {"--mat", UI_OPT_VALUE, &mat, NULL},
                     {"--profile", UI_OPT_VALUE, &profile, NULL},
                     {"--pieces", UI_OPT_VALUE, &pieces, NULL},
                     {"--lens", UI_OPT_VALUE, &lensname, NULL},
                     {"--db", UI_OPT_VALUE, &dbpath, NULL}};
    int npos, rc, status = UI_EXIT_OK;
    ref_reader_config cfg;
    ref_reader *rd = NULL;
    ref_reading *reading = NULL;
    vis_image *img = NULL;
    vis_qwirkle_profile prof;
    vis_pieceset *set = NULL;
    vis_camera lens;
    base_err err;

    if ((rc = ui_parse_args(self, argc, argv, opts, 6, pos, 1, &npos)) != 0)
        return rc;
    if (npos != 1 || !game) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (!ref_reader_supported(game))
        return ui_fail(self, UI_EXIT_USAGE, "no recogniser for the game '%s' (qwirkle, cards, cube2 and cubed have one)",
                       game);
    if ((status = ui_reader_setup(self, game, mat, lensname, profile, dbpath, &cfg, &lens,
                                  &prof)) != UI_EXIT_OK)
        return status;
    if (pieces && ui_pieces_load(pieces, dbpath, game, &set, &err) != 0)
        return ui_fail(self, UI_EXIT_USAGE, "--pieces: %s", err.msg);
    if (vis_image_read(pos[0], 3, &img, &err) != 0) {
        vis_pieceset_free(set);
        return ui_fail(self, UI_EXIT_USAGE, "cannot read the image: %s", err.msg);
    }
    if (ref_reader_new(&cfg, &rd, &err) != 0 || !(reading = malloc(sizeof *reading))) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", reading ? err.msg : "out of memory");
        goto done;
    }
    if (profile)
        ref_reader_set_profile(rd, &prof);
    if (set) {
        if (ref_reader_use_pieces(rd, set, &err) != 0) {
            status = ui_fail(self, UI_EXIT_USAGE, "--pieces %s: %s", pieces, err.msg);
            goto done;
        }
        set = NULL; /* the reader's now */
    }
    if ((rc = ref_reader_read(rd, img, reading, &err)) != 0) {
        status = ui_fail(self, rc == BASE_ENOTFOUND ? UI_EXIT_USAGE : UI_EXIT_FAIL,
                         "%s: %s", pos[0], err.msg);
        goto done;
    }
    {
        cJSON *root = cJSON_CreateObject(), *pieces;
        cJSON *mo = cJSON_CreateObject(), *found = cJSON_AddArrayToObject(mo, "found");
        int minx = 0, miny = 0;
        cJSON_AddStringToObject(root, "game", game);
        pieces = cJSON_AddArrayToObject(root, "pieces");
        /* qwirkle and cards cells are counted from the top-left piece;
         * cube2's are the board's own squares (FORMATS.md 4) */
        for (int i = 0; strcmp(game, "cube2") != 0 && i < reading->n; i++) {
            if (i == 0 || reading->pieces[i].x < minx)
                minx = reading->pieces[i].x;
            if (i == 0 || reading->pieces[i].y < miny)
                miny = reading->pieces[i].y;
        }
        for (int i = 0; i < reading->n; i++) {
            rules_piece p = reading->pieces[i];
            cJSON *o;
            p.x = (int16_t)(p.x - minx);
            p.y = (int16_t)(p.y - miny);
            o = rules_piece_to_json(game, &p);
            cJSON_AddNumberToObject(o, "conf", round(reading->conf[i] * 100) / 100);
            if (reading->duplicate[i]) /* a misreading, or a second deck */
                cJSON_AddTrueToObject(o, "duplicate");
            cJSON_AddItemToArray(pieces, o);
        }
        for (int id = 0; id < 4; id++)
            if (reading->mat_found & (1u << id))
                cJSON_AddItemToArray(found, cJSON_CreateNumber(id));
        cJSON_AddItemToObject(root, "mat", mo);
        if (reading->hand)
            cJSON_AddTrueToObject(root, "hand");
        ui_print_json_line(root);
        cJSON_Delete(root);
    }
    {
        char advice[REF_ADVICE_MAX];
        if (ref_camera_advice(game, ref_reading_seen(reading), advice, sizeof advice))
            fprintf(stderr, "tablecam recognize: note: %s\n", advice);
    }
done:
    vis_pieceset_free(set);
    free(reading);
    ref_reader_free(rd);
    vis_image_free(img);
    return status;
}
