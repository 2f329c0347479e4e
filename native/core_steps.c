/*
 * parse_steps: a chain's steps, what indexer/lang/python/index.py `_parse_steps` gives, kept
 * in a dict by chain as its `parse_steps` kept them (emptied when it holds STEPS_MAX). The
 * Python resolver's lookups parse a chain at every evaluation (Django: ~110K asks, 36K
 * parses): a Python function's call, a dict lookup and, for a parse, a regex match per part.
 *
 * `a.b().c[]` -> (("a", ""), ("b", "()"), ("c", "[]")); a chain without `(` or `[` is split
 * on `.` as it is (any part, even empty); with one, each part must be a name (an ASCII
 * letter or `_`, then word characters as the regex `\w` knows them, or `$`) followed by
 * `()` and `[]` only, else the chain has no steps (None).
 */
#include "core.h"

#define STEPS_MAX 65536 /* (index.py _STEPS_MAX) */

static PyObject *steps_cache; /* chain -> its steps or None */

/* whether `ch` is one of the regex's `[\w$]` (sre: alphanumeric as str.isalnum, or `_`) */
static inline int word_or_dollar(Py_UCS4 ch) {
    if (ch < 128) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_' || ch == '$';
    }
    return Py_UNICODE_ISALNUM(ch);
}

/* the (name, suffix) of chain[start:end], a new reference; NULL with no error set: not a
 * step (the regex would not match the part whole) */
static PyObject *one_step(PyObject *chain, int kind, const void *data, Py_ssize_t start,
                          Py_ssize_t end) {
    Py_ssize_t i = start;
    if (i >= end) return NULL;
    Py_UCS4 ch = PyUnicode_READ(kind, data, i);
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')) return NULL;
    for (i++; i < end && word_or_dollar(PyUnicode_READ(kind, data, i)); i++) {
    }
    Py_ssize_t name_end = i;
    for (; i + 1 < end; i += 2) { /* `()` and `[]` to the end */
        Py_UCS4 a = PyUnicode_READ(kind, data, i), b = PyUnicode_READ(kind, data, i + 1);
        if (!((a == '(' && b == ')') || (a == '[' && b == ']'))) return NULL;
    }
    if (i != end) return NULL;
    PyObject *name = PyUnicode_Substring(chain, start, name_end);
    PyObject *suffix = name == NULL ? NULL : PyUnicode_Substring(chain, name_end, end);
    PyObject *step = suffix == NULL ? NULL : PyTuple_Pack(2, name, suffix);
    Py_XDECREF(name);
    Py_XDECREF(suffix);
    return step;
}

/* the steps of `chain` (a new reference: a tuple, or None), NULL on error */
static PyObject *parse(PyObject *chain) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
    int kind = PyUnicode_KIND(chain);
    const void *data = PyUnicode_DATA(chain);
    Py_ssize_t parts = 1;
    int bracket = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '.') parts++;
        else if (ch == '(' || ch == '[') bracket = 1;
    }
    PyObject *out = PyTuple_New(parts);
    if (out == NULL) return NULL;
    Py_ssize_t start = 0, k = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        if (i < n && PyUnicode_READ(kind, data, i) != '.') continue;
        PyObject *step;
        if (!bracket) { /* (the part as it is, no suffix: CPython's one empty str) */
            PyObject *part = PyUnicode_Substring(chain, start, i);
            PyObject *empty = part == NULL ? NULL : PyUnicode_New(0, 0);
            step = empty == NULL ? NULL : PyTuple_Pack(2, part, empty);
            Py_XDECREF(part);
            Py_XDECREF(empty);
        } else {
            step = one_step(chain, kind, data, start, i);
            if (step == NULL && !PyErr_Occurred()) {
                Py_DECREF(out);
                Py_RETURN_NONE;
            }
        }
        if (step == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k++, step);
        start = i + 1;
    }
    return out;
}

/* parse_steps(chain) -> tuple of (name, suffix) or None (cached) */
PyObject *core_parse_steps(PyObject *self, PyObject *chain) {
    (void)self;
    if (!PyUnicode_Check(chain)) {
        PyErr_Format(PyExc_TypeError, "parse_steps: a chain is a str, not %.80s",
                     Py_TYPE(chain)->tp_name);
        return NULL;
    }
    if (steps_cache == NULL && (steps_cache = PyDict_New()) == NULL) return NULL;
    PyObject *hit = PyDict_GetItemWithError(steps_cache, chain); /* borrowed */
    if (hit != NULL) return Py_NewRef(hit);
    if (PyErr_Occurred()) return NULL;
    if (PyDict_GET_SIZE(steps_cache) >= STEPS_MAX) PyDict_Clear(steps_cache);
    PyObject *steps = parse(chain);
    if (steps == NULL) return NULL;
    if (PyDict_SetItem(steps_cache, chain, steps) < 0) {
        Py_DECREF(steps);
        return NULL;
    }
    return steps;
}

/* parse_steps_cached() -> the cache dict (tests; index.py empties it with the Python one) */
PyObject *core_parse_steps_cache(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    if (steps_cache == NULL && (steps_cache = PyDict_New()) == NULL) return NULL;
    return Py_NewRef(steps_cache);
}
