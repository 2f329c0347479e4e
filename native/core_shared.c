/*
 * The values the facts decoded while resolver projects are made share across files
 * (indexer/lang/api.py shared_values; typed_list in core_rows.c): one str object per str
 * value, one int object per int from 257 below 65536. marshal makes a blob's strs and ints
 * anew; Django's project held 387K strs of 139K values.
 *
 * The strs are kept in an open-addressing table of their own, by a multiplicative hash of
 * their characters: a dict of strs hashed every str marshal had just made with SipHash and
 * looked it up (~380 instructions a str, ~200 M per Django build), and most of these strs
 * are dropped at once for the one kept. A kept str's own hash is computed where a dict
 * first needs it, as before the table.
 */

#include "core.h"

#define INTS_MAX 65536

typedef struct {
    uint64_t hash;
    PyObject *str; /* a reference; NULL: a free slot */
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *entries;
    size_t mask; /* (the number of slots, a power of two, less one) */
    size_t used;
    PyObject **ints; /* INTS_MAX slots, NULL or a reference to the int of that value */
} Shared;

/* the characters' bytes 8 at a time, then a final mix: the low bits index the table */
static uint64_t chars_hash(const unsigned char *p, size_t n, int kind) {
    const uint64_t k = 0x517cc1b727220a95ull;
    uint64_t h = (uint64_t)n * 0x9e3779b97f4a7c15ull ^ (uint64_t)kind, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (((h << 5) | (h >> 59)) ^ w) * k;
    }
    if (i < n) {
        w = 0;
        memcpy(&w, p + i, n - i);
        h = (((h << 5) | (h >> 59)) ^ w) * k;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static int grow(Shared *t) {
    size_t size = (t->mask + 1) * 2;
    Entry *entries = PyMem_Calloc(size, sizeof(Entry));
    if (entries == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; t->entries != NULL && i <= t->mask; i++) {
        Entry e = t->entries[i];
        if (e.str == NULL) continue;
        size_t j = e.hash & (size - 1);
        while (entries[j].str != NULL) j = (j + 1) & (size - 1);
        entries[j] = e;
    }
    PyMem_Free(t->entries);
    t->entries = entries;
    t->mask = size - 1;
    return 0;
}

/* The slots a str is looked for in, from the one its hash gives: the hash has no secret, so
 * the strs of a hostile checkout could be made to fall into one run of slots, and each
 * lookup would go through all of it (quadratic). Past them a str is left unshared (sharing
 * only saves memory): a str costs at most PROBES comparisons. (Django's 71,666 distinct
 * ASCII strs lie at most 29 slots past their own in the table of 2/3 load at most: PROBES
 * leaves room for trees many times larger.) */
#define PROBES 128

/* The str kept for the value of `s` (borrowed: `s` itself when it is the first of its
 * value, or left unshared); NULL on error. */
static PyObject *kept_str(Shared *t, PyObject *s) {
    if ((t->used + 1) * 3 > (t->mask + 1) * 2 && grow(t) < 0) return NULL;
    int kind = PyUnicode_KIND(s);
    size_t nbytes = (size_t)PyUnicode_GET_LENGTH(s) * (size_t)kind;
    const void *data = PyUnicode_DATA(s);
    uint64_t h = chars_hash(data, nbytes, kind);
    size_t i = h & t->mask;
    for (int probes = 0; probes < PROBES; probes++, i = (i + 1) & t->mask) {
        Entry *e = &t->entries[i];
        if (e->str == s) return s;
        if (e->str == NULL) {
            e->hash = h;
            e->str = Py_NewRef(s);
            t->used++;
            return s;
        }
        if (e->hash == h && PyUnicode_KIND(e->str) == kind &&
            (size_t)PyUnicode_GET_LENGTH(e->str) * (size_t)kind == nbytes &&
            memcmp(PyUnicode_DATA(e->str), data, nbytes) == 0)
            return e->str;
    }
    return s;
}

/* The str `values` keeps for the ASCII characters p[0:n] (n >= 2), a new reference: the one
 * kept, else made of them and kept (unless the probes run out: then left unshared); NULL
 * on error. The facts decoder (core_decode.c) looks a str up so before making it: most
 * of a build's strs of shared fields are another file's value already, and a str made and
 * dropped at once was marshal's work for nothing. The table's hash is of the characters'
 * bytes, kind 1: the same as kept_str's for the str made of them. */
PyObject *shared_ascii(PyObject *values, const char *p, Py_ssize_t n) {
    Shared *t = (Shared *)values;
    if ((t->used + 1) * 3 > (t->mask + 1) * 2 && grow(t) < 0) return NULL;
    uint64_t h = chars_hash((const unsigned char *)p, (size_t)n, PyUnicode_1BYTE_KIND);
    size_t i = h & t->mask;
    for (int probes = 0; probes < PROBES; probes++, i = (i + 1) & t->mask) {
        Entry *e = &t->entries[i];
        if (e->str == NULL) {
            PyObject *s = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, p, n);
            if (s == NULL) return NULL;
            e->hash = h;
            e->str = Py_NewRef(s);
            t->used++;
            return s;
        }
        if (e->hash == h && PyUnicode_KIND(e->str) == PyUnicode_1BYTE_KIND &&
            PyUnicode_GET_LENGTH(e->str) == n && memcmp(PyUnicode_DATA(e->str), p, (size_t)n) == 0)
            return Py_NewRef(e->str);
    }
    return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, p, n);
}

/* The int `values` keeps for v (257 <= v < INTS_MAX: share_value's range), a new reference:
 * the one kept, else made and kept; other values made as PyLong_FromLong makes them. */
PyObject *shared_int(PyObject *values, long v) {
    if (v < 257 || v >= INTS_MAX) return PyLong_FromLong(v);
    Shared *t = (Shared *)values;
    PyObject *kept = t->ints[v];
    if (kept == NULL) {
        kept = PyLong_FromLong(v);
        if (kept == NULL) return NULL;
        t->ints[v] = kept;
    }
    return Py_NewRef(kept);
}

/* *slot (a reference) made the one object `values` keeps for its value, the first one met:
 * a str (longer than one letter: "" and one letter are one object already), an int from
 * 257 below INTS_MAX (line numbers, most offsets). A tuple's items likewise, `depth` levels
 * down, replaced in place (equal values of immutable objects). -1: an error. */
int share_value(PyObject *values, PyObject **slot, int depth) {
    Shared *t = (Shared *)values;
    PyObject *x = *slot;
    if (PyUnicode_CheckExact(x)) {
        if (PyUnicode_GET_LENGTH(x) < 2) return 0;
        PyObject *kept = kept_str(t, x);
        if (kept == NULL) return -1;
        if (kept != x) Py_SETREF(*slot, Py_NewRef(kept));
    } else if (PyLong_CheckExact(x)) {
#if PY_VERSION_HEX < 0x030C0000
        /* (an int of one digit read in place: CPython before 3.12 keeps 0 < v < 2**30 as one
           30-bit digit; PyLong_AsLong's checks were ~27 instructions of each of ~330K ints) */
        long v = Py_SIZE(x) == 1 ? (long)((PyLongObject *)x)->ob_digit[0] : PyLong_AsLong(x);
#else
        long v = PyLong_AsLong(x);
#endif
        if (v < 257 || v >= INTS_MAX) {
            if (v == -1) PyErr_Clear(); /* (past a C long) */
            return 0;
        }
        PyObject *kept = t->ints[v];
        if (kept == NULL)
            t->ints[v] = Py_NewRef(x);
        else if (kept != x)
            Py_SETREF(*slot, Py_NewRef(kept));
    } else if (depth > 0 && PyTuple_CheckExact(x)) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(x); k++)
            if (share_value(values, &((PyTupleObject *)x)->ob_item[k], depth - 1) < 0) return -1;
    }
    return 0;
}

static PyObject *shared_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != NULL && PyDict_GET_SIZE(kwds) != 0)) {
        PyErr_SetString(PyExc_TypeError, "SharedValues() takes no arguments");
        return NULL;
    }
    Shared *t = (Shared *)type->tp_alloc(type, 0);
    if (t == NULL) return NULL;
    t->mask = 1023; /* (doubled to 2048 slots by the first grow) */
    t->ints = PyMem_Calloc(INTS_MAX, sizeof(PyObject *));
    if (t->ints == NULL || grow(t) < 0) {
        if (t->ints == NULL) PyErr_NoMemory();
        Py_DECREF(t);
        return NULL;
    }
    return (PyObject *)t;
}

static void shared_dealloc(Shared *t) {
    for (size_t i = 0; t->entries != NULL && i <= t->mask; i++) Py_XDECREF(t->entries[i].str);
    for (size_t i = 0; t->ints != NULL && i < INTS_MAX; i++) Py_XDECREF(t->ints[i]);
    PyMem_Free(t->entries);
    PyMem_Free(t->ints);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t shared_len(Shared *t) { return (Py_ssize_t)t->used; }

static PySequenceMethods shared_as_sequence = {.sq_length = (lenfunc)shared_len};

PyTypeObject SharedValues_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "codeimpact.native._core.SharedValues",
    .tp_doc = "SharedValues(): the strs and ints typed_list's shared fields are made one object"
              " per value of (len(): the strs kept)",
    .tp_basicsize = sizeof(Shared),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = shared_new,
    .tp_dealloc = (destructor)shared_dealloc,
    .tp_as_sequence = &shared_as_sequence,
};
