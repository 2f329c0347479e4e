/*
 * huge_arenas: the small-object allocator's arenas (1 MiB each: every object of 512 bytes or
 * less) carved two by two from 2 MiB-aligned mappings advised MADV_HUGEPAGE, so the kernel
 * backs each pair with one transparent huge page at its first touch: one page fault and one
 * 2 MiB zeroing instead of 512 faults of 4 KiB (this VM: ~2 us a fault; 64 MiB first touched
 * in 16K faults ~30 ms of system time, in 32 huge pages ~3-8 ms; mapped MAP_POPULATE ~22-29
 * ms). The resolve host turns it on for its life: its build (~105 arenas on Django, on the
 * serial stretch between the extraction's end and its first worker's fork) and the arenas it
 * and its workers take while they resolve (~35 each: ~25K first-touch faults of the tree).
 * A copy-on-write of a huge page shared by a fork copies 4 KiB as before (the kernel splits
 * it), so what the processes copy is unchanged; each holds at most its newest pair's unused
 * pools resident beyond what 4 KiB pages would (an arena freed is unmapped: none were freed
 * in Django's resolution). Where the kernel has no huge page to give (THP off, fragmented
 * memory) the advice is ignored: 4 KiB pages, as before. Linux only; elsewhere nothing
 * changes. (Session 20 mapped the arenas MAP_POPULATE: every new arena resident in full at
 * once, ~1 MiB of 4 KiB pages populated one by one, for the build only.)
 */

#include "core.h"

#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HUGE_SPAN ((size_t)2 << 20)

/* the rest of the current 2 MiB span: the next arena is carved from it (a forked child
 * carves the rest of its parent's span in its own address space) */
static char *span_next = NULL;
static size_t span_left = 0;

static void *plain_map(size_t size) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* a 2 MiB-aligned span advised MADV_HUGEPAGE: twice its size mapped, the ends unmapped */
static int new_span(void) {
    char *p = plain_map(2 * HUGE_SPAN);
    if (p == NULL)
        return 0;
    char *a = (char *)(((uintptr_t)p + HUGE_SPAN - 1) & ~(uintptr_t)(HUGE_SPAN - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (a + HUGE_SPAN < p + 2 * HUGE_SPAN)
        munmap(a + HUGE_SPAN, (size_t)(p + 2 * HUGE_SPAN - (a + HUGE_SPAN)));
    madvise(a, HUGE_SPAN, MADV_HUGEPAGE); /* (refused: 4 KiB pages, as a plain mapping) */
    span_next = a;
    span_left = HUGE_SPAN;
    return 1;
}

static void *arena_alloc(void *ctx, size_t size) {
    (void)ctx;
    if (size == 0 || HUGE_SPAN % size != 0)
        return plain_map(size); /* (an arena size that does not divide the span) */
    if (span_left < size && !new_span())
        return NULL;
    void *out = span_next;
    span_next += size;
    span_left -= size;
    return out;
}

static void arena_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    munmap(ptr, size); /* (an arena of either allocator: CPython's are mmaps too) */
}

static PyObjectArenaAllocator saved; /* the allocator before huge_arenas(True) */
#endif

/* huge_arenas(on) -> bool: on: new arenas are carved from huge-page-advised spans in this
 * process from now on (and in the processes it forks); off: the allocator before is back.
 * Whether they were before the call (False where they cannot be). */
PyObject *core_huge_arenas(PyObject *self, PyObject *on) {
    (void)self;
    int want = PyObject_IsTrue(on);
    if (want < 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    PyObjectArenaAllocator now;
    PyObject_GetArenaAllocator(&now);
    int was = now.alloc == arena_alloc;
    if (want && !was) {
        PyObjectArenaAllocator mine = {NULL, arena_alloc, arena_free};
        saved = now;
        PyObject_SetArenaAllocator(&mine);
    } else if (!want && was) {
        PyObject_SetArenaAllocator(&saved);
        span_next = NULL; /* (the span's rest is left unused) */
        span_left = 0;
    }
    return PyBool_FromLong(was);
#else
    Py_RETURN_FALSE;
#endif
}

/* arenas_huge() -> bool: whether huge_arenas(True) holds in this process (or in the one
 * that forked it) */
PyObject *core_arenas_huge(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    PyObjectArenaAllocator now;
    PyObject_GetArenaAllocator(&now);
    return PyBool_FromLong(now.alloc == arena_alloc);
#else
    Py_RETURN_FALSE;
#endif
}
