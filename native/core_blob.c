/*
 * resolved_blob: a resolved file (rows, edges, unresolved sites, two counts) as marshal bytes
 * (format 4), each distinct string written once and referenced after: what indexer/state.py
 * `_resolved_blob` makes by copying every row into a plain tuple with shared uid strings and
 * calling marshal.dumps, without those copies. `marshal.loads` gives the same value; the
 * bytes may differ (which strings are shared). Every resolved file of a full build passes
 * here; a value it does not write (an int beyond 32 bits, a str with a lone surrogate, a type
 * marshal would write some other way) makes it answer None, and the caller uses the Python way.
 */
#include "core.h"

#include <string.h>

#define FLAG_REF 0x80

/* The strs and floats written by the current call, by value: their reference numbers. An
 * open-addressing table of this file's own, kept from call to call (a slot is of the call
 * whose generation it holds: nothing is cleared per call), probed by the objects' hashes (a
 * str keeps its own once computed): a dict of PyLongs was made, grown and freed per file,
 * ~0.25 G instructions over Django's resolution. The objects are borrowed (the rows being
 * written hold them) and never read in a slot of another generation. */
typedef struct {
    PyObject *obj;
    Py_hash_t hash;
    int32_t no;
    uint32_t gen;
} ref_t;
static ref_t *ref_slots;
static size_t ref_mask; /* slots - 1 (a power of two); 0 before the first call */
static size_t ref_used;
static uint32_t ref_gen;

static inline size_t ref_home(Py_hash_t h) { return table_home(h, ref_mask); }

/* a new generation: every slot free (-1 without memory) */
static int refs_begin(void) {
    if (ref_slots == NULL) {
        ref_slots = PyMem_Calloc(1024, sizeof *ref_slots);
        if (ref_slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        ref_mask = 1023;
    }
    if (++ref_gen == 0) { /* (wrapped: no slot may look current) */
        for (size_t i = 0; i <= ref_mask; i++) ref_slots[i].gen = 0;
        ref_gen = 1;
    }
    ref_used = 0;
    return 0;
}

/* twice the slots, this generation's entries moved (-1 without memory) */
static int refs_grow(void) {
    size_t old_mask = ref_mask, n = 2 * (old_mask + 1);
    ref_t *old = ref_slots, *slots = PyMem_Calloc(n, sizeof *slots);
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    ref_slots = slots;
    ref_mask = n - 1;
    for (size_t i = 0; i <= old_mask; i++) {
        if (old[i].gen != ref_gen) continue;
        size_t slot = ref_home(old[i].hash);
        while (slots[slot].gen == ref_gen) slot = (slot + 1) & ref_mask;
        slots[slot] = old[i];
    }
    PyMem_Free(old);
    return 0;
}

/* whether two keys of the table are equal as dict keys (exact strs or exact floats) */
static inline int same_value(PyObject *a, PyObject *b) {
    if (Py_TYPE(a) != Py_TYPE(b)) return 0;
    if (PyFloat_CheckExact(a)) return PyFloat_AS_DOUBLE(a) == PyFloat_AS_DOUBLE(b);
    return same_str(a, b);
}

/* A str or float met before: its reference is written (1); else its number is reserved and
 * the caller writes it with FLAG_REF (2); 0 when there are too many; -1 on error. The floats
 * are the rules' few confidences. */
static int put_ref(out_t *o, PyObject *v) {
    Py_hash_t h;
    if (PyFloat_CheckExact(v)) { /* (its bits: a float's hash is computed at every ask) */
        double d = PyFloat_AS_DOUBLE(v);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits); /* (no 0.0 nor nan here: equal values, equal bits) */
        h = (Py_hash_t)(bits ^ (bits >> 29));
    } else if ((h = PyObject_Hash(v)) == -1) { /* (an exact str: no code of the caller's runs) */
        return -1;
    }
    size_t slot = ref_home(h);
    for (ref_t *r; (r = &ref_slots[slot])->gen == ref_gen; slot = (slot + 1) & ref_mask) {
        if (r->obj == v || (r->hash == h && same_value(r->obj, v))) {
            if (out_byte(o, 'r') < 0 || out_int32(o, r->no) < 0) return -1;
            return 1;
        }
    }
    if (o->nrefs >= INT32_MAX) return 0;
    if (2 * (ref_used + 1) > ref_mask + 1) { /* (at most half full: short probes) */
        if (refs_grow() < 0) return -1;
        slot = ref_home(h);
        while (ref_slots[slot].gen == ref_gen) slot = (slot + 1) & ref_mask;
    }
    ref_slots[slot] = (ref_t){v, h, (int32_t)o->nrefs, ref_gen};
    ref_used++;
    o->nrefs++;
    return 2;
}

/* 1 written, 0 not writable here (the caller falls back), -1 error */
static int put_str(out_t *o, PyObject *s) {
    Py_ssize_t n;
    const char *utf8;
    int type;
    if (PyUnicode_IS_ASCII(s)) {
        n = PyUnicode_GET_LENGTH(s);
        utf8 = (const char *)PyUnicode_1BYTE_DATA(s);
        type = n < 256 ? 'z' : 'a';
    } else {
        utf8 = PyUnicode_AsUTF8AndSize(s, &n);
        if (utf8 == NULL) { /* a lone surrogate: marshal writes it with surrogatepass */
            PyErr_Clear();
            return 0;
        }
        type = 'u';
    }
    if (n > INT32_MAX) return 0;
    int seen = put_ref(o, s);
    if (seen != 2) return seen;
    if (out_byte(o, type | FLAG_REF) < 0) return -1;
    if (type == 'z') {
        if (out_byte(o, (int)n) < 0) return -1;
    } else if (out_int32(o, (int32_t)n) < 0) {
        return -1;
    }
    return out_bytes(o, utf8, n) < 0 ? -1 : 1;
}

static int put_value(out_t *o, PyObject *v) {
    if (PyUnicode_CheckExact(v)) return put_str(o, v);
    if (v == Py_None) return out_byte(o, 'N') < 0 ? -1 : 1;
    if (v == Py_True) return out_byte(o, 'T') < 0 ? -1 : 1;
    if (v == Py_False) return out_byte(o, 'F') < 0 ? -1 : 1;
    if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (overflow || x < INT32_MIN || x > INT32_MAX) return 0;
        if (out_byte(o, 'i') < 0 || out_int32(o, (int32_t)x) < 0) return -1;
        return 1;
    }
    if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        int flag = 0;
        if (d != 0.0 && d == d) { /* (not by value: 0.0 == -0.0, nan != nan) */
            int seen = put_ref(o, v);
            if (seen != 2) return seen;
            flag = FLAG_REF;
        }
        if (out_byte(o, 'g' | flag) < 0 || out_grow(o, 8) < 0) return -1;
        if (PyFloat_Pack8(PyFloat_AS_DOUBLE(v), o->data + o->len, 1) < 0) return -1;
        o->len += 8;
        return 1;
    }
    return 0;
}

/* A list of tuples (rows), each written as a plain tuple of its fields. */
static int put_rows(out_t *o, PyObject *rows) {
    if (!PyList_Check(rows) || PyList_GET_SIZE(rows) > INT32_MAX) return 0;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    if (out_byte(o, '[') < 0 || out_int32(o, (int32_t)n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) >= 256) return 0;
        Py_ssize_t k = PyTuple_GET_SIZE(row);
        if (out_byte(o, ')') < 0 || out_byte(o, (int)k) < 0) return -1;
        for (Py_ssize_t f = 0; f < k; f++) {
            int r = put_value(o, PyTuple_GET_ITEM(row, f));
            if (r <= 0) return r;
        }
    }
    return 1;
}

PyObject *core_resolved_blob(PyObject *self, PyObject *args) {
    PyObject *symbols, *edges, *unresolved, *total, *builtin;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOO:resolved_blob", &symbols, &edges, &unresolved, &total,
                          &builtin))
        return NULL;
    out_t o = {NULL, 0, 0, 0};
    if (refs_begin() < 0) return NULL;
    int r = out_byte(&o, ')') < 0 || out_byte(&o, 5) < 0 ? -1 : 1;
    if (r > 0) r = put_rows(&o, symbols);
    if (r > 0) r = put_rows(&o, edges);
    if (r > 0) r = put_rows(&o, unresolved);
    if (r > 0) r = PyLong_CheckExact(total) ? put_value(&o, total) : 0;
    if (r > 0) r = PyLong_CheckExact(builtin) ? put_value(&o, builtin) : 0;
    return out_answer(&o, r);
}
