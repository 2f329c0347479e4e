/*
 * resolve_calls' loop over a Python file's call sites (indexer/lang/python/playback.py
 * `Playback._resolve_calls`, the reference and the fallback): every call site of a
 * resolution passes here, ~16% of the resolution's bytecodes in Python. The sites played back
 * (the kept lookup and the memo's outcome read, the outcome's edges written with the site's
 * source and line) are done here; everything else is a call back into the project's Python
 * methods (lookup_name, _record_outcome, _arguments, _resolve_call, _too_deep on a
 * RecursionError), in the same order with the same arguments. A change there is made here
 * too (tests/test_core_playback.py compares every edge, site and table the two make).
 */

#include "core.h"

enum { C_SCOPE = 0, C_CALLEE = 1, C_LINE = 2, C_KIND = 3, C_ARGS = 4 };
enum { K_SHAPES, K_CALLEE_SHAPE, K_COUNT };
/* a played outcome (the memo's value): edge ends, unresolved names, builtin count, steps */
enum { P_ENDS, P_NAMES, P_BUILTIN, P_FOLLOW, P_COUNT };
/* a hit of `here` (a list): the source, the played outcome's four, the first line played */
enum { H_SRC, H_ENDS, H_NAMES, H_BUILTIN, H_FIRST, H_FOLLOW, H_COUNT };
/* a callee's shape (playback.py _SHAPES): its head name [1], what the playback reads [7] */
enum { SH_HEAD = 1, SH_PLAY = 7, SH_COUNT };
enum { M_LOOKUP, M_RECORD, M_ARGUMENTS, M_RESOLVE, M_TOO_DEEP, M_COUNT };
static const char *const METHODS[M_COUNT] = {"lookup_name", "_record_outcome", "_arguments",
                                             "_resolve_call", "_too_deep"};

static PyObject *s_decorator, *s_stars, *s_outcome, *s_sep, *zero;

static int init_strings(void) {
    if (zero != NULL) return 0;
    struct {
        PyObject **slot;
        const char *text;
    } all[] = {{&s_decorator, "decorator"}, {&s_stars, "**"}, {&s_outcome, "call outcome"},
               {&s_sep, "::"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(all[i].text);
        if (s == NULL) return -1;
        *all[i].slot = s;
    }
    zero = PyLong_FromLong(0);
    return zero != NULL ? 0 : -1;
}

/* what one file's loop reads (borrowed but the methods, taken when first called) */
typedef struct {
    PyObject *self, *fi, *edges, *out, *unresolved, *path, *bound;
    PyObject *lookups, *table, *srcs, *shapes, *callee_shape;
    PyObject *methods[M_COUNT];
    long long builtin; /* the played sites' builtin calls, added to out.calls_builtin at the end */
} Run;

/* `self.NAME(*args)`, the bound method taken once per file */
static PyObject *call_back(Run *r, int which, PyObject *const *args, Py_ssize_t n) {
    if (r->methods[which] == NULL) {
        r->methods[which] = PyObject_GetAttrString(r->self, METHODS[which]);
        if (r->methods[which] == NULL) return NULL;
    }
    return PyObject_Vectorcall(r->methods[which], args, (size_t)n, NULL);
}

/* a call back's answer dropped: 0, or -1 (NULL: the error set) */
static int done_with(PyObject *v) {
    if (v == NULL) return -1;
    Py_DECREF(v);
    return 0;
}

/* `except RecursionError: self._too_deep(fi, call, out)` (an absurdly deep chain: unresolved,
 * not a crash): 0 when caught, -1 for any other error */
static int too_deep(Run *r, PyObject *call) {
    if (!PyErr_ExceptionMatches(PyExc_RecursionError)) return -1;
    PyErr_Clear();
    PyObject *args[3] = {r->fi, call, r->out};
    return done_with(call_back(r, M_TOO_DEEP, args, 3));
}

/* whether a site's arguments need `_arguments` beside its outcome's steps: a dotted one, whose
 * reads it looks for (`for _, chain in args: if "." in chain`) (1, 0, -1) */
static int any_dotted(PyObject *args) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        PyObject *arg = PyTuple_GET_ITEM(args, i);
        if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != 2 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(arg, 1))) {
            PyErr_SetString(PyExc_TypeError, "playback_calls: an argument is not (key, chain)");
            return -1;
        }
        PyObject *chain = PyTuple_GET_ITEM(arg, 1);
        Py_ssize_t at = PyUnicode_FindChar(chain, '.', 0, PyUnicode_GET_LENGTH(chain), 1);
        if (at != -1) return at == -2 ? -1 : 1;
    }
    return 0;
}

/* the site's arguments after its outcome (`follow`: the outcome's steps): `_arguments` unless
 * nothing is to be made (no step, no dotted argument); a RecursionError is not caught here */
static int arguments(Run *r, PyObject *call, PyObject *args, PyObject *src, PyObject *follow) {
    if (PyTuple_GET_SIZE(args) == 0) return 0;
    int some = PyObject_IsTrue(follow);
    if (some < 0) return -1;
    if (!some) {
        some = any_dotted(args);
        if (some <= 0) return some;
    }
    PyObject *a[5] = {r->fi, call, src, r->edges, follow};
    return done_with(call_back(r, M_ARGUMENTS, a, 5));
}

/* a hit (a list of H_COUNT) made from the memo's played outcome, with the site's source */
static PyObject *hit_of(PyObject *src, PyObject *played) {
    if (!PyTuple_Check(played) || PyTuple_GET_SIZE(played) != P_COUNT) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: a played outcome is not a 4-tuple");
        return NULL;
    }
    PyObject *hit = PyList_New(H_COUNT);
    if (hit == NULL) return NULL;
    PyList_SET_ITEM(hit, H_SRC, Py_NewRef(src));
    for (int i = 0; i < P_COUNT; i++)
        PyList_SET_ITEM(hit, i < P_FOLLOW ? H_ENDS + i : H_FOLLOW,
                        Py_NewRef(PyTuple_GET_ITEM(played, i)));
    PyList_SET_ITEM(hit, H_FIRST, Py_NewRef(Py_None));
    return hit;
}

/* `("call outcome", method, method, value, last)`: the memo's key of the outcome */
static PyObject *outcome_key(PyObject *method, PyObject *value, PyObject *last) {
    return PyTuple_Pack(5, s_outcome, method, method, value, last);
}

/* a hit played at a site: its edges (at the first line it is played at, or an earlier one),
 * its unresolved names, its builtin count, then the site's arguments */
static int play(Run *r, PyObject *hit, PyObject *call, PyObject *line, PyObject *args) {
    PyObject *src = PyList_GET_ITEM(hit, H_SRC), *ends = PyList_GET_ITEM(hit, H_ENDS);
    PyObject *names = PyList_GET_ITEM(hit, H_NAMES), *first = PyList_GET_ITEM(hit, H_FIRST);
    PyObject *builtin = PyList_GET_ITEM(hit, H_BUILTIN);
    if (!PyTuple_Check(ends) || !PyTuple_Check(names) || !PyLong_Check(builtin)) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: a played outcome's fields");
        return -1;
    }
    int earlier = first == Py_None;
    if (!earlier) {
        earlier = PyObject_RichCompareBool(line, first, Py_LT);
        if (earlier < 0) return -1;
    }
    if (earlier) {
        PyList_SetItem(hit, H_FIRST, Py_NewRef(line)); /* (steals; the old one released) */
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(ends); i++) {
            PyObject *end = PyTuple_GET_ITEM(ends, i); /* (rel, dst, conf, reason) */
            if (!PyTuple_Check(end) || PyTuple_GET_SIZE(end) != 4) {
                PyErr_SetString(PyExc_TypeError, "playback_calls: an edge end is not a 4-tuple");
                return -1;
            }
            PyObject *edge = PyTuple_Pack(6, PyTuple_GET_ITEM(end, 0), src,
                                          PyTuple_GET_ITEM(end, 1), PyTuple_GET_ITEM(end, 2),
                                          PyTuple_GET_ITEM(end, 3), line);
            int rc = edge != NULL ? PyList_Append(r->edges, edge) : -1;
            Py_XDECREF(edge);
            if (rc < 0) return -1;
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *site = PyTuple_Pack(3, src, PyTuple_GET_ITEM(names, i), line);
        int rc = site != NULL ? PyList_Append(r->unresolved, site) : -1;
        Py_XDECREF(site);
        if (rc < 0) return -1;
    }
    int overflow;
    r->builtin += PyLong_AsLongLongAndOverflow(builtin, &overflow);
    if (overflow || PyErr_Occurred()) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_OverflowError, "playback_calls: builtin");
        return -1;
    }
    if (arguments(r, call, args, src, PyList_GET_ITEM(hit, H_FOLLOW)) < 0)
        return too_deep(r, call);
    return 0;
}

/* the scope's table of `here` and its source (playback.py: looked up where the scope changes)
 * (each held) */
typedef struct {
    PyObject *scope, *table, *src;
} Scope;

static void scope_clear(Scope *s) {
    Py_CLEAR(s->table);
    Py_CLEAR(s->src);
    Py_CLEAR(s->scope);
}

static int enter_scope(Run *r, PyObject *here, Scope *s, PyObject *scope) {
    scope_clear(s);
    PyObject *table = PyDict_GetItemWithError(here, scope);
    if (table != NULL) {
        Py_INCREF(table);
    } else {
        if (PyErr_Occurred()) return -1;
        table = PyDict_New();
        if (table == NULL || PyDict_SetItem(here, scope, table) < 0) {
            Py_XDECREF(table);
            return -1;
        }
    }
    PyObject *src = PyDict_GetItemWithError(r->srcs, scope);
    if (src != NULL) {
        Py_INCREF(src);
    } else if (PyErr_Occurred()) {
        Py_DECREF(table);
        return -1;
    } else {
        src = PyUnicode_FromFormat("%U::%U", r->path, scope);
        if (src == NULL || PyDict_SetItem(r->srcs, scope, src) < 0) {
            Py_XDECREF(src);
            Py_DECREF(table);
            return -1;
        }
    }
    *s = (Scope){Py_NewRef(scope), table, src};
    return 0;
}

/* a site not met before in its scope, whose shape is played back (`play_of`: (name, method,
 * last)): its value (the kept lookup `value` under `lk`, else lookup_name), then the memo's
 * outcome (`played`, when read already): a hit kept for the next sites (when the lookup is
 * kept), or the outcome recorded and the site's arguments made. The hit (new reference), or
 * Py_None when the site is done, NULL on error. */
static PyObject *first_site(Run *r, Scope *s, PyObject *call, PyObject *callee, PyObject *line,
                            PyObject *args, PyObject *play_of, PyObject *lk, PyObject *value,
                            PyObject *key) {
    PyObject *name = PyTuple_GET_ITEM(play_of, 0), *method = PyTuple_GET_ITEM(play_of, 1);
    PyObject *last = PyTuple_GET_ITEM(play_of, 2);
    PyObject *hit = NULL, *follow = NULL, *played = NULL;
    int kept = 1; /* (the lookup kept for the file: not line-dependent) */
    Py_XINCREF(value);
    Py_XINCREF(key);
    if (value == NULL) {
        PyObject *a[6] = {r->fi, s->scope, name, line, zero, lk};
        value = call_back(r, M_LOOKUP, a, 6);
        if (value == NULL) goto deep;
        kept = PyDict_Contains(r->lookups, lk);
        if (kept < 0) goto deep;
        key = outcome_key(method, value, last);
        if (key == NULL) goto deep;
        played = PyDict_GetItemWithError(r->table, key);
        if (played == NULL && PyErr_Occurred()) goto deep;
    } /* (else the memo was read under key: nothing ran since) */
    if (played == NULL) {
        PyObject *a[9] = {key, r->fi, call, method, value, last, r->edges, s->src, r->out};
        follow = call_back(r, M_RECORD, a, 9);
        if (follow == NULL || arguments(r, call, args, s->src, follow) < 0) goto deep;
        hit = Py_NewRef(Py_None);
        goto done;
    }
    hit = hit_of(s->src, played); /* (played by the caller) */
    if (hit != NULL && kept && PyDict_SetItem(s->table, callee, hit) < 0) Py_CLEAR(hit);
    goto done;
deep:
    if (too_deep(r, call) == 0) hit = Py_NewRef(Py_None);
done:
    Py_XDECREF(key);
    Py_XDECREF(value);
    Py_XDECREF(follow);
    return hit;
}

/* a site not met before in its scope: what `here` keeps of it (new reference): False (never
 * played by its form), a hit, or Py_None when the site was resolved here (first_site) */
static PyObject *new_site(Run *r, Scope *s, PyObject *call, PyObject *callee, PyObject *line,
                          PyObject *args) {
    PyObject *shape = PyDict_GetItemWithError(r->shapes, callee);
    if (shape != NULL) {
        Py_INCREF(shape);
    } else {
        if (PyErr_Occurred()) return NULL;
        shape = PyObject_CallOneArg(r->callee_shape, callee); /* (the table's miss) */
        if (shape == NULL) return NULL;
    }
    PyObject *hit = NULL, *lk = NULL, *key = NULL;
    if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != SH_COUNT) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: a callee's shape");
        goto done;
    }
    PyObject *play_of = PyTuple_GET_ITEM(shape, SH_PLAY);
    int never = play_of == Py_None;
    if (!never) {
        /* (`bound and head in bound`: most files bind no name to getattr's result) */
        never = PyObject_IsTrue(r->bound);
        if (never > 0) never = PySequence_Contains(r->bound, PyTuple_GET_ITEM(shape, SH_HEAD));
        if (never < 0) goto done;
    }
    if (never) {
        hit = Py_NewRef(Py_False);
        if (PyDict_SetItem(s->table, callee, hit) < 0) Py_CLEAR(hit);
        goto done;
    }
    if (!PyTuple_Check(play_of) || PyTuple_GET_SIZE(play_of) != 3) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: a shape's playback is not a triple");
        goto done;
    }
    lk = PyTuple_Pack(3, r->path, s->scope, PyTuple_GET_ITEM(play_of, 0));
    PyObject *value = lk != NULL ? PyDict_GetItemWithError(r->lookups, lk) : NULL;
    if (value == NULL) {
        if (!PyErr_Occurred()) hit = first_site(r, s, call, callee, line, args, play_of, lk,
                                                NULL, NULL);
        goto done;
    }
    Py_INCREF(value); /* (the memo's key holds it too) */
    key = outcome_key(PyTuple_GET_ITEM(play_of, 1), value, PyTuple_GET_ITEM(play_of, 2));
    PyObject *played = key != NULL ? PyDict_GetItemWithError(r->table, key) : NULL;
    if (played != NULL) {
        hit = hit_of(s->src, played);
        if (hit != NULL && PyDict_SetItem(s->table, callee, hit) < 0) Py_CLEAR(hit);
    } else if (!PyErr_Occurred()) {
        hit = first_site(r, s, call, callee, line, args, play_of, lk, value, key);
    }
    Py_DECREF(value);
done:
    Py_XDECREF(lk);
    Py_XDECREF(key);
    Py_DECREF(shape);
    return hit;
}

/* one call site, playback.py `_resolve_calls`' loop body */
static int one_site(Run *r, PyObject *here, Scope *s, PyObject *call) {
    if (!fact_ok(call, C_ARGS + 1)) return -1;
    PyObject *scope = PyTuple_GET_ITEM(call, C_SCOPE), *callee = PyTuple_GET_ITEM(call, C_CALLEE);
    PyObject *line = PyTuple_GET_ITEM(call, C_LINE), *kind = PyTuple_GET_ITEM(call, C_KIND);
    PyObject *args = PyTuple_GET_ITEM(call, C_ARGS);
    if (!str_ok(scope) || !str_ok(callee) || !str_ok(kind)) return -1;
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: a call's args are not a tuple");
        return -1;
    }
    /* (`**kw` first: whether the call forwards its own keywords only, per site) */
    int general = same_str(kind, s_decorator);
    if (!general && PyTuple_GET_SIZE(args)) {
        PyObject *first = PyTuple_GET_ITEM(args, 0);
        if (!PyTuple_Check(first) || PyTuple_GET_SIZE(first) < 1) {
            PyErr_SetString(PyExc_TypeError, "playback_calls: an argument is not (key, chain)");
            return -1;
        }
        PyObject *key = PyTuple_GET_ITEM(first, 0);
        general = PyUnicode_CheckExact(key) && same_str(key, s_stars);
    }
    if (!general) {
        if (s->scope == NULL || !same_str(scope, s->scope)) {
            if (enter_scope(r, here, s, scope) < 0) return -1;
        }
        PyObject *hit = PyDict_GetItemWithError(s->table, callee);
        if (hit != NULL) {
            Py_INCREF(hit);
        } else {
            if (PyErr_Occurred()) return -1;
            hit = new_site(r, s, call, callee, line, args);
            if (hit == NULL) return -1;
        }
        int rc = 0;
        if (hit == Py_None) { /* (resolved by new_site) */
        } else if (hit != Py_False) {
            if (!PyList_CheckExact(hit) || PyList_GET_SIZE(hit) != H_COUNT) {
                PyErr_SetString(PyExc_TypeError, "playback_calls: a hit");
                rc = -1;
            } else {
                rc = play(r, hit, call, line, args);
            }
        }
        Py_DECREF(hit);
        if (hit != Py_False) return rc;
    }
    PyObject *a[9] = {r->fi, call, scope, callee, line, kind, args, r->edges, r->out};
    if (done_with(call_back(r, M_RESOLVE, a, 9)) < 0) return too_deep(r, call);
    return 0;
}

/* playback_calls(project, fi, calls, edges, out, lookups, table, srcs, kit): playback.py
 * `_resolve_calls`' loop over fi's calls (CallFacts); lookups, table, srcs: the project's
 * `_lookups`, `memo.table`, `_srcs`; kit: (_SHAPES, callee_shape) */
PyObject *core_playback_calls(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "playback_calls takes 9 arguments");
        return NULL;
    }
    PyObject *calls = args[2], *kit = args[8];
    Run r = {.self = args[0], .fi = args[1], .edges = args[3], .out = args[4],
             .lookups = args[5], .table = args[6], .srcs = args[7]};
    if (!PyList_Check(calls) || !PyList_Check(r.edges) || !PyDict_Check(r.lookups) ||
        !PyDict_Check(r.table) || !PyDict_Check(r.srcs) || !PyTuple_Check(kit) ||
        PyTuple_GET_SIZE(kit) != K_COUNT || !PyDict_Check(PyTuple_GET_ITEM(kit, K_SHAPES))) {
        PyErr_SetString(PyExc_TypeError, "playback_calls: the arguments' types");
        return NULL;
    }
    if (init_strings() < 0) return NULL;
    r.shapes = PyTuple_GET_ITEM(kit, K_SHAPES);
    r.callee_shape = PyTuple_GET_ITEM(kit, K_CALLEE_SHAPE);
    PyObject *result = NULL, *here = NULL, *total = NULL, *sum = NULL, *n = NULL;
    Scope s = {NULL, NULL, NULL};
    r.unresolved = attr(r.out, "unresolved", &PyList_Type);
    r.path = r.unresolved != NULL ? attr(r.fi, "path", &PyUnicode_Type) : NULL;
    r.bound = r.path != NULL ? PyObject_GetAttrString(r.fi, "getattr_bound") : NULL;
    if (r.bound == NULL) goto done;
    /* out.calls_total += len(calls) */
    total = PyObject_GetAttrString(r.out, "calls_total");
    n = total != NULL ? PyLong_FromSsize_t(PyList_GET_SIZE(calls)) : NULL;
    sum = n != NULL ? PyNumber_Add(total, n) : NULL;
    if (sum == NULL || PyObject_SetAttrString(r.out, "calls_total", sum) < 0) goto done;
    Py_CLEAR(total);
    Py_CLEAR(sum);
    Py_CLEAR(n);
    here = PyDict_New(); /* scope -> callee -> a hit, or False (never played) */
    if (here == NULL) goto done;
    /* (the list may not change under the loop: the facts' own) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(calls); i++) {
        PyObject *call = PyList_GET_ITEM(calls, i);
        Py_INCREF(call);
        int rc = one_site(&r, here, &s, call);
        Py_DECREF(call);
        if (rc < 0) goto done;
    }
    /* out.calls_builtin += the played sites' */
    total = PyObject_GetAttrString(r.out, "calls_builtin");
    n = total != NULL ? PyLong_FromLongLong(r.builtin) : NULL;
    sum = n != NULL ? PyNumber_Add(total, n) : NULL;
    if (sum == NULL || PyObject_SetAttrString(r.out, "calls_builtin", sum) < 0) goto done;
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(total);
    Py_XDECREF(sum);
    Py_XDECREF(n);
    Py_XDECREF(here);
    Py_XDECREF(r.bound);
    scope_clear(&s);
    Py_XDECREF(r.path);
    Py_XDECREF(r.unresolved);
    for (int i = 0; i < M_COUNT; i++) Py_XDECREF(r.methods[i]);
    return result;
}
