/* ui/profile.c: calibration profiles as the commands take them (--lens,
 * --profile): a file, else a profile stored under that name in the
 * database; the same for `recognize`, `calibrate colors` and `watch`. */
#include "ui.h"

#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "db.h"

/* A profile of kind by file name, else by name in the database; *json is
 * malloc'ed. */
static int ui__profile_load(const char *what, const char *dbpath, const char *kind, char **json,
                    base_err *err)
{
    char k[32];
    int rc = cal_profile_read(what, json, err);
    if (rc == BASE_ENOTFOUND) {
        db *d = NULL;
        char *dk = NULL;
        base_err e2;
        if (db_open(dbpath, DB_OPEN_READONLY, &e2, &d) != 0)
            return base_err_set(err, BASE_ENOTFOUND,
                                "no profile file '%s', and no database %s to look it up in", what,
                                dbpath);
        rc = db_profile_get(d, what, &dk, json, err);
        db_close(d);
        free(dk);
        if (rc != 0)
            return base_err_set(err, rc, "no profile file or stored profile named '%s'", what);
    } else if (rc != 0) {
        return rc;
    }
    if ((rc = cal_profile_kind(*json, k, sizeof k, err)) != 0 || strcmp(k, kind) != 0) {
        if (rc == 0)
            rc = base_err_set(err, BASE_EPARSE, "profile '%s' is a %s profile, not a %s profile",
                              what, k, kind);
        else
            base_err_prefix(err, "profile '%s': ", what);
        free(*json);
        *json = NULL;
        return rc;
    }
    return 0;
}

int ui_lens_load(const char *what, const char *dbpath, vis_camera *out, base_err *err)
{
    char *json = NULL;
    int rc = ui__profile_load(what, dbpath, CAL_KIND_CAMERA, &json, err);
    if (rc == 0)
        rc = cal_camera_from_json(json, out, NULL, NULL, err);
    free(json);
    return rc;
}

int ui_reader_setup(const ui_command *self, const char *game, const char *mat,
                    const char *lensname, const char *profile, const char *dbpath,
                    ref_reader_config *cfg, vis_camera *lens, vis_qwirkle_profile *prof)
{
    cal_mat m;
    base_err err;
    if (mat && cal_mat_parse(mat, &m, &err) != 0)
        return ui_fail(self, UI_EXIT_USAGE, "--mat: %s", err.msg);
    memset(cfg, 0, sizeof *cfg);
    cfg->game = game;
    cfg->mat = mat;
    if (lensname) {
        if (ui_lens_load(lensname, dbpath, lens, &err) != 0)
            return ui_fail(self, UI_EXIT_USAGE, "--lens: %s", err.msg);
        cfg->lens = lens;
    }
    if (profile && ui_colors_load(profile, dbpath, game, prof, &err) != 0)
        return ui_fail(self, UI_EXIT_USAGE, "--profile: %s", err.msg);
    return UI_EXIT_OK;
}

int ui_pieces_load(const char *what, const char *dbpath, const char *game, vis_pieceset **out,
                   base_err *err)
{
    char *json = NULL, g[32];
    int rc = ui__profile_load(what, dbpath, CAL_KIND_PIECES, &json, err);
    if (rc == 0 && (rc = vis_pieceset_from_json(json, out, g, sizeof g, err)) != 0)
        base_err_prefix(err, "'%s': ", what);
    free(json);
    if (rc == 0 && strcmp(g, game) != 0) {
        vis_pieceset_free(*out);
        *out = NULL;
        rc = base_err_set(err, BASE_EINVAL, "'%s' is a %s set, not a %s one", what, g, game);
    }
    return rc;
}

int ui_colors_load(const char *what, const char *dbpath, const char *game,
                   vis_qwirkle_profile *out, base_err *err)
{
    char *json = NULL;
    int rc;
    if (strcmp(game, "qwirkle") != 0)
        return base_err_set(err, BASE_EINVAL,
                            "colour profiles are for qwirkle cubes (the cards reader learns the "
                            "mat's and the cards' colours from each frame)");
    rc = ui__profile_load(what, dbpath, CAL_KIND_COLORS, &json, err);
    if (rc == 0)
        rc = cal_colors_from_json(json, out, err);
    free(json);
    return rc;
}
