/* ui: the `tablecam` command line (one file per subcommand, cmd_*.c) and,
 * later, the local web app.  The only module that talks to the user. */
#ifndef TABLECAM_UI_H
#define TABLECAM_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "base.h"
#include "calib.h"
#include "referee.h"

/* Exit statuses of every subcommand. */
enum { UI_EXIT_OK = 0, UI_EXIT_FAIL = 1, UI_EXIT_USAGE = 2 };

typedef struct ui_command {
    const char *name;
    const char *summary;                 /* one line for `tablecam help` */
    const char *usage;                   /* "--game G FILE|-" */
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
} ui_command;

/* The command table (ui/main.c), NULL-terminated. */
const ui_command *ui_commands(void);
const ui_command *ui_command_find(const char *name);

/* ---- argument parsing shared by the subcommands ---- */

enum ui_opt_kind { UI_OPT_FLAG, UI_OPT_VALUE };

typedef struct ui_opt {
    const char *name;    /* "--game" */
    int kind;
    const char **value;  /* UI_OPT_VALUE: receives the value */
    bool *set;           /* UI_OPT_FLAG: set to true; may be NULL for values */
} ui_opt;

/* Parses argv[1..] into opts and positional arguments (at most maxpos; "-"
 * counts as positional, "--" ends options).  On a bad flag or too many
 * positionals prints a short usage line to stderr and returns
 * UI_EXIT_USAGE; else 0. */
int ui_parse_args(const ui_command *cmd, int argc, char **argv, const ui_opt *opts,
                  int nopts, const char **pos, int maxpos, int *npos);

/* Prints "usage: tablecam NAME USAGE" to f. */
void ui_usage(const ui_command *cmd, FILE *f);

/* Prints "tablecam NAME: message" to stderr and returns status. */
int ui_fail(const ui_command *cmd, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prints one cJSON value as a single line on stdout (and frees nothing). */
struct cJSON;
void ui_print_json_line(const struct cJSON *obj);

/* The subcommands. */
int ui_cmd_help(int argc, char **argv);
int ui_cmd_version(int argc, char **argv);
int ui_cmd_referee(int argc, char **argv);
int ui_cmd_mat(int argc, char **argv);
int ui_cmd_watch(int argc, char **argv);
int ui_cmd_demo(int argc, char **argv);
int ui_cmd_import(int argc, char **argv);
int ui_cmd_matches(int argc, char **argv);
int ui_cmd_show(int argc, char **argv);
int ui_cmd_export(int argc, char **argv);
int ui_cmd_stats(int argc, char **argv);
int ui_cmd_sim(int argc, char **argv);
int ui_cmd_serve(int argc, char **argv);
int ui_cmd_recognize(int argc, char **argv);
int ui_cmd_calibrate(int argc, char **argv);

/* Calibration profiles: the file what, else the profile named what in the
 * database at dbpath, parsed; err says what is wrong and where.  A lens
 * (`calibrate camera`); colours (`calibrate colors`), BASE_EINVAL for a
 * game other than qwirkle. */
int ui_lens_load(const char *what, const char *dbpath, vis_camera *out, base_err *err);
int ui_colors_load(const char *what, const char *dbpath, const char *game,
                   vis_qwirkle_profile *out, base_err *err);
/* The reader's set-up from the options every reading command shares:
 * --mat (checked), --lens and --profile (each may be NULL), into *cfg
 * (whose lens points at *lens) and *prof.  On a bad one, prints it as the
 * command's error and returns UI_EXIT_USAGE; else UI_EXIT_OK. */
int ui_reader_setup(const ui_command *self, const char *game, const char *mat,
                    const char *lensname, const char *profile, const char *dbpath,
                    ref_reader_config *cfg, vis_camera *lens, vis_qwirkle_profile *prof);
/* An enrolled set (`calibrate pieces`) of game; BASE_EINVAL when it was
 * enrolled for another game. */
int ui_pieces_load(const char *what, const char *dbpath, const char *game, vis_pieceset **out,
                   base_err *err);

#endif
