// Include directories come from compile_commands.json when the project has one (here with a
// relative `directory`; real ones are absolute and are matched to the repository by their
// `file`): `api.h` is third/api/api.h by its -I flag, not the other api.h a search by name
// would find first. Macros that decorate declarations (`API`, defined empty by the header
// itself, and the kernel's `__init`) are expanded away before parsing, so the functions
// they decorate are still functions.
// exact: calls, imports
// path: build/compile_commands.json
[{"directory": "build", "file": "../src/main.c", "arguments": ["cc", "-I../third/api", "-c", "../src/main.c"]}]
// path: other/api.h
int api_open(int flags);
// path: third/api/api.h
#ifndef API
#define API
#endif
API int api_open(void);
//      ^ !defines: api_open
API int api_close(int h)
//      ^ defines: api_close function
{
    return h;
}
// path: third/api/api.c
#include "api.h"
//       ^ imports: third/api/api.h::
API int api_open(void) { return api_close(0); }
//      ^ defines: api_open function
//                              ^ calls: api_close (import)
// path: src/main.c
#include "api.h"
//       ^ imports: third/api/api.h::
#include <linux/init.h>
//       ^ imports: <external>::linux/init.h

static int __init main_init(void)
//                ^ defines: main_init function
{
    return api_open();
    //     ^ calls: api_open (import)
}
