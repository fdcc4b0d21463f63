/* ui/cmd_help.c: `tablecam help [COMMAND]`. */
#include "ui.h"

#include <string.h>

int ui_cmd_help(int argc, char **argv)
{
    const ui_command *self = ui_command_find("help");
    const char *pos[1];
    int npos, rc;

    if ((rc = ui_parse_args(self, argc, argv, NULL, 0, pos, 1, &npos)) != 0)
        return rc;
    if (npos == 1) {
        const ui_command *c = ui_command_find(pos[0]);
        if (!c)
            return ui_fail(self, UI_EXIT_USAGE, "unknown command '%s'", pos[0]);
        printf("tablecam %s - %s\n", c->name, c->summary);
        ui_usage(c, stdout);
        return UI_EXIT_OK;
    }
    printf("tablecam %s - a camera referee for cube games at a real table\n\n", TABLECAM_VERSION);
    printf("usage: tablecam [--log=LEVEL] COMMAND [ARGS]\n\ncommands:\n");
    for (const ui_command *c = ui_commands(); c->name; c++)
        printf("  %-10s %s\n", c->name, c->summary);
    printf("\n'tablecam help COMMAND' shows a command's arguments.\n"
           "LEVEL is debug, info, warn (default), error or off; TABLECAM_LOG sets it too.\n");
    return UI_EXIT_OK;
}
