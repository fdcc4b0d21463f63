/* ui/main.c: the `tablecam` command: global flags, then one subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

static const ui_command ui__commands[] = {
    {"help", "list the commands, or show how to use one", "[COMMAND]", ui_cmd_help},
    {"version", "print the version", "", ui_cmd_version},
    {"demo", "a simulated match (Qwirkle Cubes unless --game) refereed live, with the web app",
     "[--game qwirkle|cards|cube2] [--seed N] [--moves M] [--http ADDR] [--db FILE] [--size WxH] [--fast] [--no-web] [--json] "
     "[--hold]",
     ui_cmd_demo},
    {"watch", "referee a live game from a camera", 
     "--game G --camera SPEC --players A,B [--mat WxH:S] [--lens NAME|FILE] "
     "[--profile NAME|FILE] [--pieces NAME|FILE] [--db FILE] [--http ADDR] "
     "[--token T] [--gpio CHIP:LINE=ACTION,...] [--options JSON] [--start CARD] [--json] [--resume] "
     "[--realtime] "
     "[--no-keys]",
     ui_cmd_watch},
    {"mat", "print the table mat's markers at true size (PDF or PNG)",
     "--out FILE.pdf|FILE.png [--mat WxH:S] [--dpi N]", ui_cmd_mat},
    {"referee", "referee a game record: one verdict line per event",
     "--game G FILE|- [--solve [--solve-time SECONDS]]",
     ui_cmd_referee},
    {"import", "referee a game record and store it as a match; prints its id",
     "--game G [--db FILE] [--json] FILE|-", ui_cmd_import},
    {"matches", "list the stored matches", "[--db FILE] [--game G] [--player NAME] "
     "[--state live|finished|abandoned] [--json]", ui_cmd_matches},
    {"show", "a stored match move by move, or its board after move N",
     "[--db FILE] [--json] [--at N [--svg]] MATCH", ui_cmd_show},
    {"export", "write a stored match as a game record", "[--db FILE] MATCH", ui_cmd_export},
    {"stats", "games, wins and average score per player", "[--db FILE] [--player NAME] "
     "[--game G] [--json]", ui_cmd_stats},
    {"sim", "render simulated camera frames of a random game, with ground truth",
     "--game G --seed N --out DIR [--frames K] [--moves M] [--width W --height H] "
     "[--illegal P] [--fps F] [--players N] [--mat WxH:S] [--clean] [--no-hands] "
     "[--design D|-1] [--down P] [--setup mixed|any|good] [--enrol K]",
     ui_cmd_sim},
    {"serve", "the web app: live page and match history in a browser",
     "[--db FILE] [--http ADDR] [--token T]", ui_cmd_serve},
    {"recognize", "read the pieces off one photograph of the table (qwirkle, cards, cube2, cubed)",
     "--game G [--mat WxH:S] [--profile NAME|FILE] [--pieces NAME|FILE] [--lens NAME|FILE] "
     "[--db FILE] IMAGE",
     ui_cmd_recognize},
    {"calibrate", "print the lens board, calibrate the lens or the colours, enrol a set, list "
     "profiles",
     "board --out FILE.png [--dpi N] | camera [--name NAME] [--out FILE] [--db FILE] IMAGE... | "
     "colors [--name NAME] [--out FILE] [--db FILE] [--mat WxH:S] [--lens NAME|FILE] IMAGE | "
     "pieces --game G [--name NAME] [--out FILE] [--db FILE] [--mat WxH:S] [--lens NAME|FILE] "
     "[--profile NAME|FILE] IMAGE... | list [--db FILE]",
     ui_cmd_calibrate},
    {NULL, NULL, NULL, NULL},
};

const ui_command *ui_commands(void) { return ui__commands; }

const ui_command *ui_command_find(const char *name)
{
    for (const ui_command *c = ui__commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *env = getenv("TABLECAM_LOG");
    int i = 1;

    if (env && base_log_parse_level(env) >= 0)
        base_log_set_level(base_log_parse_level(env));
    /* Global flags come before the subcommand. */
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0)
            return ui_cmd_version(1, argv);
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return ui_cmd_help(1, argv);
        if (strncmp(argv[i], "--log=", 6) == 0 && base_log_parse_level(argv[i] + 6) >= 0) {
            base_log_set_level(base_log_parse_level(argv[i] + 6));
            continue;
        }
        fprintf(stderr, "tablecam: unknown option '%s'\n", argv[i]);
        fprintf(stderr, "usage: tablecam [--log=LEVEL] COMMAND [ARGS] (try 'tablecam help')\n");
        return UI_EXIT_USAGE;
    }
    if (i >= argc) {
        ui_cmd_help(1, argv);
        return UI_EXIT_USAGE;
    }
    const ui_command *c = ui_command_find(argv[i]);
    if (!c) {
        fprintf(stderr, "tablecam: unknown command '%s'\n", argv[i]);
        fprintf(stderr, "usage: tablecam [--log=LEVEL] COMMAND [ARGS] (try 'tablecam help')\n");
        return UI_EXIT_USAGE;
    }
    return c->run(argc - i, argv + i);
}
