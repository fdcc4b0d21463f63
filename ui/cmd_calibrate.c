/* ui/cmd_calibrate.c: `tablecam calibrate board|camera|colors|list`.
 *
 *   calibrate board --out FILE.png [--dpi N]
 *       prints the ChArUco board (7 x 5 squares of 30 mm, 22 mm markers of
 *       ArUco 5x5_100, never taken for the mat's) to photograph;
 *   calibrate camera [--name NAME] [--out FILE] [--db FILE] IMAGE...
 *       the lens from a few photographs of that board (3 at least, better
 *       10-20 from varied angles);
 *   calibrate colors [--name NAME] [--out FILE] [--db FILE] [--mat MAT]
 *                    [--lens NAME|FILE] IMAGE
 *       the six colours from a photograph of the mat with cubes of all six
 *       colours on it (one of each in a row is enough);
 *   calibrate pieces --game G [--name NAME] [--out FILE] [--db FILE]
 *                    [--mat MAT] [--lens NAME|FILE] [--profile NAME|FILE]
 * IMAGE... one physical set from its enrolment photos (FORMATS.md 7; qwirkle:
 *       six, one per shape; cube2: one of the board), for --pieces of
 *       recognize and watch;
 *   calibrate list [--db FILE]
 *       the stored profiles.
 * A new profile is printed as one JSON line, stored in the database under
 * NAME with --name and written to FILE with --out (FILE for
 * --profile/--lens of `recognize`). */
#include "ui.h"

#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "db.h"
#include "referee.h"

#define UI__CAL_MAX_IMAGES 64

static const vis_charuco_spec ui__board = {7, 5, 30.0, 22.0};

/* Prints, stores and writes a new profile. */
static int ui__cal_save(const ui_command *self, const char *json, const char *kind,
                        const char *name, const char *out, const char *dbpath)
{
    base_err err;
    if (out && cal_profile_write(out, json, &err) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    if (name) {
        db *d = NULL;
        if (db_open(dbpath, DB_OPEN_CREATE, &err, &d) != 0)
            return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        if (db_profile_put(d, name, kind, json, &err) != 0) {
            db_close(d);
            return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        }
        db_close(d);
    }
    fputs(json, stdout);
    fputc('\n', stdout);
    return UI_EXIT_OK;
}

static int ui__cal_board(const ui_command *self, int argc, char **argv)
{
    const char *out = NULL, *dpis = NULL;
    ui_opt opts[] = {{"--out", UI_OPT_VALUE, &out, NULL}, {"--dpi", UI_OPT_VALUE, &dpis, NULL}};
    const char *pos[1];
    int npos, rc;
    double dpi = 150, ppm;
    vis_image *img = NULL;
    base_err err;
    if ((rc = ui_parse_args(self, argc, argv, opts, 2, pos, 0, &npos)) != 0)
        return rc;
    if (!out) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (dpis && !((dpi = atof(dpis)) >= 50 && dpi <= 1200))
        return ui_fail(self, UI_EXIT_USAGE, "--dpi '%s': expected 50 to 1200", dpis);
    ppm = dpi / 25.4;
    {
        double mm_w = ui__board.squares_x * ui__board.square_len + 20;
        double mm_h = ui__board.squares_y * ui__board.square_len + 20;
        if ((rc = vis_charuco_board_render(ui__board, (int)(mm_w * ppm + 0.5),
                                           (int)(mm_h * ppm + 0.5), (int)(10 * ppm + 0.5), &img,
                                           &err)) != 0 ||
            (rc = vis_image_write(out, img, 0, &err)) != 0) {
            vis_image_free(img);
            return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        }
    }
    vis_image_free(img);
    printf("wrote %s: a ChArUco board of %d x %d squares; print it at %g dpi "
           "(squares of %g mm), "
           "lay it flat and photograph it from 10-20 angles\n",
           out, ui__board.squares_x, ui__board.squares_y, dpi, ui__board.square_len);
    return UI_EXIT_OK;
}

static int ui__cal_camera(const ui_command *self, int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *dbpath = "tablecam.db", *pos[UI__CAL_MAX_IMAGES];
    ui_opt opts[] = {{"--name", UI_OPT_VALUE, &name, NULL},
                     {"--out", UI_OPT_VALUE, &out, NULL},
                     {"--db", UI_OPT_VALUE, &dbpath, NULL}};
    vis_image *imgs[UI__CAL_MAX_IMAGES] = {0};
    int npos, rc, used = 0, status;
    double rms = 0;
    vis_camera cam;
    base_err err;
    char *json = NULL;
    if ((rc = ui_parse_args(self, argc, argv, opts, 3, pos, UI__CAL_MAX_IMAGES, &npos)) != 0)
        return rc;
    if (npos < 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    for (int i = 0; i < npos; i++)
        if (vis_image_read(pos[i], 1, &imgs[i], &err) != 0) {
            for (int j = 0; j < i; j++)
                vis_image_free(imgs[j]);
            return ui_fail(self, UI_EXIT_USAGE, "cannot read the image: %s", err.msg);
        }
    for (int i = 1; i < npos; i++)
        if (imgs[i]->width != imgs[0]->width || imgs[i]->height != imgs[0]->height) {
            status = ui_fail(self, UI_EXIT_USAGE, "%s is %dx%d but %s is %dx%d: one camera, one size",
                             pos[i], imgs[i]->width, imgs[i]->height, pos[0], imgs[0]->width,
                             imgs[0]->height);
            goto done;
        }
    rc = vis_calibrate_charuco((const vis_image *const *)imgs, npos, ui__board, &cam, &rms, &used,
                               &err);
    if (rc != 0) {
        status = ui_fail(self, rc == BASE_ENOTFOUND ? UI_EXIT_USAGE : UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    if (cal_camera_to_json(&cam, imgs[0]->width, imgs[0]->height, rms, &json, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    fprintf(stderr, "tablecam calibrate: %d of %d images showed the board; %.2f px rms\n", used,
            npos, rms);
    status = ui__cal_save(self, json, CAL_KIND_CAMERA, name, out, dbpath);
done:
    free(json);
    for (int i = 0; i < npos; i++)
        vis_image_free(imgs[i]);
    return status;
}

static int ui__cal_colors(const ui_command *self, int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *dbpath = "tablecam.db", *mat = NULL, *lensname = NULL;
    const char *pos[1];
    ui_opt opts[] = {{"--name", UI_OPT_VALUE, &name, NULL},
                     {"--out", UI_OPT_VALUE, &out, NULL},
                     {"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--mat", UI_OPT_VALUE, &mat, NULL},
                     {"--lens", UI_OPT_VALUE, &lensname, NULL}};
    int npos, rc, status;
    ref_reader_config cfg;
    ref_reader *rd = NULL;
    vis_image *img = NULL;
    vis_qwirkle_profile prof;
    vis_camera lens;
    base_err err;
    char *json = NULL;
    if ((rc = ui_parse_args(self, argc, argv, opts, 5, pos, 1, &npos)) != 0)
        return rc;
    if (npos != 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if ((status = ui_reader_setup(self, "qwirkle", mat, lensname, NULL, dbpath, &cfg, &lens,
                                  &prof)) != UI_EXIT_OK)
        return status;
    if (vis_image_read(pos[0], 3, &img, &err) != 0)
        return ui_fail(self, UI_EXIT_USAGE, "cannot read the image: %s", err.msg);
    if ((rc = ref_reader_new(&cfg, &rd, &err)) == 0)
        rc = ref_reader_learn(rd, img, &prof, &err);
    if (rc != 0) {
        status = ui_fail(self, rc == BASE_ENOTFOUND ? UI_EXIT_USAGE : UI_EXIT_FAIL, "%s: %s",
                         pos[0], err.msg);
        goto done;
    }
    if (cal_colors_to_json(&prof, &json, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    status = ui__cal_save(self, json, CAL_KIND_COLORS, name, out, dbpath);
done:
    free(json);
    ref_reader_free(rd);
    vis_image_free(img);
    return status;
}

static int ui__cal_pieces(const ui_command *self, int argc, char **argv)
{
    const char *game = NULL, *name = NULL, *out = NULL, *dbpath = "tablecam.db", *mat = NULL;
    const char *lensname = NULL, *profile = NULL, *pos[UI__CAL_MAX_IMAGES];
    ui_opt opts[] = {{"--game", UI_OPT_VALUE, &game, NULL},
                     {"--name", UI_OPT_VALUE, &name, NULL},
                     {"--out", UI_OPT_VALUE, &out, NULL},
                     {"--db", UI_OPT_VALUE, &dbpath, NULL},
                     {"--mat", UI_OPT_VALUE, &mat, NULL},
                     {"--lens", UI_OPT_VALUE, &lensname, NULL},
                     {"--profile", UI_OPT_VALUE, &profile, NULL}};
    int npos, rc, status = UI_EXIT_OK, want;
    ref_reader_config cfg;
    ref_reader *rd = NULL;
    vis_pieceset *set = NULL;
    vis_qwirkle_profile prof;
    vis_camera lens;
    base_err err;
    char *json = NULL;
    if ((rc = ui_parse_args(self, argc, argv, opts, 7, pos, UI__CAL_MAX_IMAGES, &npos)) != 0)
        return rc;
    if (!game || npos < 1) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if ((want = ref_reader_enrol_images(game)) == 0)
        return ui_fail(self, UI_EXIT_USAGE,
                       "--game %s: enrolling a set is built for qwirkle and cube2 only", game);
    if (npos != want) {
        char order[160] = "";
        for (int i = 0; i < want; i++) {
            size_t len = strlen(order);
            snprintf(order + len, sizeof order - len, "%s%s", i ? " " : "",
                     ref_reader_enrol_what(game, i));
        }
        return ui_fail(self, UI_EXIT_USAGE, "a %s set is enrolled from %d photo%s (%s), not %d",
                       game, want, want == 1 ? "" : "s", order, npos);
    }
    if ((status = ui_reader_setup(self, game, mat, lensname, profile, dbpath, &cfg, &lens,
                                  &prof)) != UI_EXIT_OK)
        return status;
    if ((rc = ref_reader_new(&cfg, &rd, &err)) != 0 ||
        (rc = ref_reader_enrol_begin(rd, &set, &err)) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    if (profile)
        ref_reader_set_profile(rd, &prof);
    for (int i = 0; i < npos; i++) {
        vis_image *img = NULL;
        if (vis_image_read(pos[i], 3, &img, &err) != 0) {
            status = ui_fail(self, UI_EXIT_USAGE, "cannot read the image: %s", err.msg);
            goto done;
        }
        rc = ref_reader_enrol(rd, img, i, set, &err);
        vis_image_free(img);
        if (rc != 0) {
            status = ui_fail(self,
                             rc == BASE_ENOTFOUND || rc == BASE_EINVAL ? UI_EXIT_USAGE : UI_EXIT_FAIL,
                             "%s (photo %d, the %s): %s", pos[i], i + 1,
                             ref_reader_enrol_what(game, i), err.msg);
            goto done;
        }
    }
    if (vis_pieceset_finish(set, &err) != 0 || vis_pieceset_to_json(set, game, &json, &err) != 0) {
        status = ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
        goto done;
    }
    {
        /* every patch enrolled shows one value of the first head */
        int n = 0;
        char weights[160] = "";
        for (int v = 0; v < VIS_CLASSIFIER_MAX_VALUES; v++)
            n += vis_pieceset_count(set, 0, v);
        for (int h = 0; vis_pieceset_head(set, h); h++) {
            size_t len = strlen(weights);
            snprintf(weights + len, sizeof weights - len, "%s%.3g for %s", h ? ", " : "",
                     vis_pieceset_weight(set, h), vis_pieceset_head(set, h));
        }
        fprintf(stderr,
                "tablecam calibrate: %d %s enrolled; the set's weight %s (0: it "
                "adds nothing "
                "the model does not read)\n",
                n, strcmp(game, "cube2") == 0 ? "squares" : "pieces", weights);
    }
    status = ui__cal_save(self, json, CAL_KIND_PIECES, name, out, dbpath);
done:
    free(json);
    vis_pieceset_free(set);
    ref_reader_free(rd);
    return status;
}

static int ui__cal_list_one(void *ctx, const char *name, const char *kind, const char *time)
{
    (void)ctx;
    printf("%s\t%s\t%s\n", name, kind, time ? time : "");
    return 0;
}

static int ui__cal_list(const ui_command *self, int argc, char **argv)
{
    const char *dbpath = "tablecam.db", *pos[1];
    ui_opt opts[] = {{"--db", UI_OPT_VALUE, &dbpath, NULL}};
    int npos, rc;
    db *d = NULL;
    base_err err;
    if ((rc = ui_parse_args(self, argc, argv, opts, 1, pos, 0, &npos)) != 0)
        return rc;
    if (db_open(dbpath, DB_OPEN_READONLY, &err, &d) != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    rc = db_profile_list(d, NULL, ui__cal_list_one, NULL, &err);
    db_close(d);
    if (rc != 0)
        return ui_fail(self, UI_EXIT_FAIL, "%s", err.msg);
    return UI_EXIT_OK;
}

int ui_cmd_calibrate(int argc, char **argv)
{
    const ui_command *self = ui_command_find("calibrate");
    if (argc < 2) {
        ui_usage(self, stderr);
        return UI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "board") == 0)
        return ui__cal_board(self, argc - 1, argv + 1);
    if (strcmp(argv[1], "camera") == 0)
        return ui__cal_camera(self, argc - 1, argv + 1);
    if (strcmp(argv[1], "colors") == 0 || strcmp(argv[1], "colours") == 0)
        return ui__cal_colors(self, argc - 1, argv + 1);
    if (strcmp(argv[1], "pieces") == 0)
        return ui__cal_pieces(self, argc - 1, argv + 1);
    if (strcmp(argv[1], "list") == 0)
        return ui__cal_list(self, argc - 1, argv + 1);
    fprintf(stderr,
            "tablecam calibrate: unknown part '%s' (board, camera, colors, "
            "pieces or list)\n",
            argv[1]);
    ui_usage(self, stderr);
    return UI_EXIT_USAGE;
}
