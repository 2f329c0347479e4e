/*
 * dedupe_edges: one edge per (relation, source, target) of a resolved file, the rule of
 * indexer/resolved.py `better` (most confident, then not a relay, then earliest line, then
 * reason), sorted. Every resolved file of a full build passes here (Django: ~240K edges);
 * the Python loop was ~4% of resolving.
 */
#include "core.h"

/* 1 when edge e is better than cur, 0 when not, -1 on error (`better` in resolved.py). */
static int edge_better(PyObject *e, PyObject *cur, PyObject *relay) {
    double ce = PyFloat_AsDouble(PyTuple_GET_ITEM(e, 3));
    if (ce == -1.0 && PyErr_Occurred()) return -1;
    double cc = PyFloat_AsDouble(PyTuple_GET_ITEM(cur, 3));
    if (cc == -1.0 && PyErr_Occurred()) return -1;
    if (ce != cc) return ce > cc; /* (-ce < -cc) */
    PyObject *re = PyTuple_GET_ITEM(e, 4), *rc = PyTuple_GET_ITEM(cur, 4);
    int xe = PyObject_RichCompareBool(re, relay, Py_EQ);
    if (xe < 0) return -1;
    int xc = PyObject_RichCompareBool(rc, relay, Py_EQ);
    if (xc < 0) return -1;
    if (xe != xc) return xe < xc; /* not a relay first */
    PyObject *le = PyTuple_GET_ITEM(e, 5), *lc = PyTuple_GET_ITEM(cur, 5);
    int eq = PyObject_RichCompareBool(le, lc, Py_EQ);
    if (eq < 0) return -1;
    if (!eq) return PyObject_RichCompareBool(le, lc, Py_LT);
    eq = PyObject_RichCompareBool(re, rc, Py_EQ);
    if (eq < 0) return -1;
    if (!eq) return PyObject_RichCompareBool(re, rc, Py_LT);
    return 0;
}

/* Order of two str: code point order, as Python's `<` (memcmp for two one-byte strings). */
static int str_order(PyObject *x, PyObject *y) {
    if (x == y) return 0;
    if (PyUnicode_KIND(x) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(y) == PyUnicode_1BYTE_KIND) {
        Py_ssize_t nx = PyUnicode_GET_LENGTH(x), ny = PyUnicode_GET_LENGTH(y);
        int c = memcmp(PyUnicode_1BYTE_DATA(x), PyUnicode_1BYTE_DATA(y),
                       (size_t)(nx < ny ? nx : ny));
        if (c != 0) return c;
        return nx < ny ? -1 : nx > ny;
    }
    return PyUnicode_Compare(x, y); /* (two str: never an error) */
}

/* The edges left are unique by (rel, src, dst): that order is the tuples' own. */
static int key_order(const void *a, const void *b) {
    PyObject *x = *(PyObject *const *)a, *y = *(PyObject *const *)b;
    for (int i = 0; i < 3; i++) {
        int c = str_order(PyTuple_GET_ITEM(x, i), PyTuple_GET_ITEM(y, i));
        if (c != 0) return c;
    }
    return 0;
}

PyObject *core_dedupe_edges(PyObject *self, PyObject *args) {
    PyObject *edges, *relay;
    (void)self;
    if (!PyArg_ParseTuple(args, "OU:dedupe_edges", &edges, &relay)) return NULL;
    PyObject *seq = PySequence_Fast(edges, "dedupe_edges: edges must be a sequence");
    if (seq == NULL) return NULL;
    PyObject *best = PyDict_New();
    if (best == NULL) goto fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = items[i];
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 6) {
            PyErr_SetString(PyExc_TypeError, "dedupe_edges: an edge is a tuple of 6 fields");
            goto fail;
        }
        for (int f = 0; f < 3; f++) {
            if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(e, f))) {
                PyErr_SetString(PyExc_TypeError, "dedupe_edges: rel, src and dst are str");
                goto fail;
            }
        }
        PyObject *key = PyTuple_GetSlice(e, 0, 3);
        if (key == NULL) goto fail;
        PyObject *cur = PyDict_GetItemWithError(best, key); /* borrowed */
        int put = 1;
        if (cur != NULL) {
            put = edge_better(e, cur, relay);
        } else if (PyErr_Occurred()) {
            put = -1;
        }
        if (put > 0 && PyDict_SetItem(best, key, e) < 0) put = -1;
        Py_DECREF(key);
        if (put < 0) goto fail;
    }
    PyObject *out = PyDict_Values(best);
    Py_DECREF(best);
    Py_DECREF(seq);
    if (out != NULL) {
        qsort(PySequence_Fast_ITEMS(out), (size_t)PyList_GET_SIZE(out), sizeof(PyObject *),
              key_order);
    }
    return out;
fail:
    Py_XDECREF(best);
    Py_DECREF(seq);
    return NULL;
}
