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

/* The edges kept by the current call, by (rel, src, dst): an open-addressing table of this
 * file's own, kept from call to call (a slot is of the call whose generation it holds),
 * probed by the three strs' hashes (each str keeps its own once computed): a dict keyed by a
 * 3-tuple sliced from every edge cost ~1,200 instructions an edge. */
typedef struct {
    Py_ssize_t at; /* the kept edge's place in `kept` */
    Py_hash_t hash;
    uint32_t gen;
} kept_key_t;
static kept_key_t *key_slots;
static size_t key_mask; /* slots - 1 (a power of two) */
static uint32_t key_gen;

static inline size_t key_home(Py_hash_t h) { return table_home(h, key_mask); }

/* room for `n` keys at most half full, every slot free (-1 without memory) */
static int keys_begin(Py_ssize_t n) {
    size_t want = 1024;
    while (want < 2 * (size_t)n) want *= 2;
    if (key_slots == NULL || key_mask + 1 < want) {
        PyMem_Free(key_slots);
        key_slots = PyMem_Calloc(want, sizeof *key_slots);
        if (key_slots == NULL) {
            key_mask = 0;
            PyErr_NoMemory();
            return -1;
        }
        key_mask = want - 1;
        key_gen = 0;
    }
    if (++key_gen == 0) { /* (wrapped: no slot may look current) */
        for (size_t i = 0; i <= key_mask; i++) key_slots[i].gen = 0;
        key_gen = 1;
    }
    return 0;
}

/* `e` as a tuple of `type` (a new reference): itself when it is one, else its items in one */
static PyObject *as_type(PyObject *e, PyTypeObject *type) {
    if (type == NULL || Py_IS_TYPE(e, type)) return Py_NewRef(e);
    Py_ssize_t n = PyTuple_GET_SIZE(e);
    PyObject *made = type->tp_alloc(type, n);
    if (made == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(made, i, Py_NewRef(PyTuple_GET_ITEM(e, i)));
    return made;
}

PyObject *core_dedupe_edges(PyObject *self, PyObject *args) {
    PyObject *edges, *relay, *as = Py_None;
    (void)self;
    if (!PyArg_ParseTuple(args, "OU|O:dedupe_edges", &edges, &relay, &as)) return NULL;
    /* `as`: the type the kept edges are made (Edge: the resolvers append plain tuples, a
       tuple.__new__(Edge, ...) per edge met cost ~0.2 us more, duplicates included) */
    PyTypeObject *type = NULL;
    if (as != Py_None) {
        type = (PyTypeObject *)as;
        if (!PyType_Check(as) || !PyType_IsSubtype(type, &PyTuple_Type) ||
            type->tp_basicsize != PyTuple_Type.tp_basicsize ||
            type->tp_itemsize != PyTuple_Type.tp_itemsize || type->tp_dictoffset != 0) {
            PyErr_SetString(PyExc_TypeError, "dedupe_edges: a tuple type without a __dict__");
            return NULL;
        }
    }
    PyObject *seq = PySequence_Fast(edges, "dedupe_edges: edges must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), k = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject **kept = PyMem_New(PyObject *, n > 0 ? n : 1); /* (borrowed: `seq` holds them) */
    if (kept == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (keys_begin(n) < 0) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = items[i];
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 6) {
            PyErr_SetString(PyExc_TypeError, "dedupe_edges: an edge is a tuple of 6 fields");
            goto fail;
        }
        uint64_t h = 0;
        for (int f = 0; f < 3; f++) {
            PyObject *s = PyTuple_GET_ITEM(e, f);
            if (!PyUnicode_CheckExact(s)) {
                PyErr_SetString(PyExc_TypeError, "dedupe_edges: rel, src and dst are str");
                goto fail;
            }
            Py_hash_t hs = PyObject_Hash(s);
            if (hs == -1) goto fail;
            h = (h ^ (uint64_t)hs) * 0x100000001B3u;
        }
        size_t slot = key_home((Py_hash_t)h);
        kept_key_t *at;
        for (; (at = &key_slots[slot])->gen == key_gen; slot = (slot + 1) & key_mask) {
            PyObject *cur = kept[at->at];
            if (at->hash == (Py_hash_t)h &&
                same_str(PyTuple_GET_ITEM(e, 0), PyTuple_GET_ITEM(cur, 0)) &&
                same_str(PyTuple_GET_ITEM(e, 1), PyTuple_GET_ITEM(cur, 1)) &&
                same_str(PyTuple_GET_ITEM(e, 2), PyTuple_GET_ITEM(cur, 2)))
                break;
        }
        if (at->gen != key_gen) { /* a key met first */
            *at = (kept_key_t){k, (Py_hash_t)h, key_gen};
            kept[k++] = e;
            continue;
        }
        int put = edge_better(e, kept[at->at], relay);
        if (put < 0) goto fail;
        if (put) kept[at->at] = e;
    }
    qsort(kept, (size_t)k, sizeof(PyObject *), key_order);
    PyObject *out = PyList_New(k);
    for (Py_ssize_t i = 0; out != NULL && i < k; i++) {
        PyObject *e = as_type(kept[i], type);
        if (e == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, e);
    }
    PyMem_Free(kept);
    Py_DECREF(seq);
    return out;
fail:
    PyMem_Free(kept);
    Py_DECREF(seq);
    return NULL;
}
