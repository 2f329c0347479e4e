/*
 * populate_arenas: the small-object allocator's arenas (1 MiB each: every object of 512
 * bytes or less) mapped with their pages populated at once (MAP_POPULATE): one mmap call
 * faults in the arena's 256 pages instead of 256 page faults as its pools are first used.
 * The resolve host turns it on while it builds its projects (~110 MB on Django, ~29K
 * first-touch faults) on the serial stretch of a full build, between the extraction's end
 * and its first worker's fork (make_projects 324 -> 298 ms single-process, sys 67 -> 38
 * ms), and off before it forks: left on in the host and its workers for the whole
 * resolution (session 20) the tree's PSS went 372 -> 389 MB (every process's newest
 * arenas resident in full; an arena freed and taken again populated anew each time).
 * Freeing is munmap, as CPython's own mmap arenas are freed: arenas of either allocator
 * are freed by the other. Linux only; elsewhere nothing changes.
 */

#include "core.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__linux__) && defined(MAP_POPULATE)
static void *arena_alloc(void *ctx, size_t size) {
    (void)ctx;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void arena_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    munmap(ptr, size);
}

static PyObjectArenaAllocator saved;  /* the allocator before populate_arenas(True) */
#endif

/* populate_arenas(on) -> bool: on: new arenas are populated in this process from now on
 * (and in the processes it forks meanwhile); off: the allocator before is back. Whether
 * they were populated before the call (False where it cannot be). */
PyObject *core_populate_arenas(PyObject *self, PyObject *on) {
    (void)self;
    int want = PyObject_IsTrue(on);
    if (want < 0)
        return NULL;
#if defined(__linux__) && defined(MAP_POPULATE)
    PyObjectArenaAllocator now;
    PyObject_GetArenaAllocator(&now);
    int was = now.alloc == arena_alloc;
    if (want && !was) {
        PyObjectArenaAllocator mine = {NULL, arena_alloc, arena_free};
        saved = now;
        PyObject_SetArenaAllocator(&mine);
    } else if (!want && was) {
        PyObject_SetArenaAllocator(&saved);
    }
    return PyBool_FromLong(was);
#else
    Py_RETURN_FALSE;
#endif
}

/* arenas_populated() -> bool: whether populate_arenas(True) holds in this process (or in
 * the one that forked it) */
PyObject *core_arenas_populated(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
#if defined(__linux__) && defined(MAP_POPULATE)
    PyObjectArenaAllocator now;
    PyObject_GetArenaAllocator(&now);
    return PyBool_FromLong(now.alloc == arena_alloc);
#else
    Py_RETURN_FALSE;
#endif
}
