/*
 * gather_file / gather_blob: one resolved file's symbol rows and edges appended to a full
 * build's gathered graph (indexer/full_graph.py FullGraph, whose Python loops stay as the
 * fallback and the tests' reference): uids numbered in order of first sight, edges as typed
 * arrays of numbers, row columns as Arrow buffers. Every file of a full build passes here; the
 * Python way made a list per column, a dict lookup through `map` per uid and a Python object
 * per value that pyarrow then read back (~0.2 s of Django's build).
 *
 * The rows are read as cells (`cell_t`: a value's type and its bytes or number), made from
 * Python's rows (gather_file) or read straight from the file's resolved blob, the marshal
 * bytes the resolvers send (gather_blob): decoding it into tuples, strs, ints and floats only
 * for this to read them back, then freeing them, was ~0.4 G of the ~0.77 G instructions of
 * Django's gathering. Only the strs looked up in a dict (uids, relations, reasons) are made,
 * once per blob each (marshal writes a string met again as a reference).
 *
 * The gathered state is Python's (FullGraph makes it, reads it, hands the buffers to Arrow
 * and numpy without a copy): `g` is a list of
 *   0 uid_no   dict  the Python loops' (left empty here)    1 uids  list  number -> uid
 *   2 rel_no   dict  relation -> its number                  3 reason_no  dict (first sight)
 *   4 reasons  list  number -> reason                        5 symbol numbers  int32
 *   6 numbers of external edge targets  int32               7..12 per edge: rel int8,
 *     src int32, dst int32, confidence float64, reason int16, line int32
 *   13 the row columns: a list, per column after the uid, of [values, offsets or None,
 *     validity] bytearrays: a string column's UTF-8 bytes and int32 offsets (a first 0), an
 *     int column's int64, a bool column's one byte per row; validity one byte per row (0:
 *     null, a None)
 *   14 the uids' numbers by their bytes: a bytearray (see uslot_t), empty at first
 * and `kinds` says each row column's kind ('s', 'i', 'b'). The bytearrays grow here; a
 * bytearray handed to Arrow is replaced in `g` first (an exported one cannot be resized).
 */
#include "core.h"

#include <string.h>

enum { G_UID_NO, G_UIDS, G_REL_NO, G_REASON_NO, G_REASONS, G_SYMS, G_EXT, G_REL, G_SRC, G_DST,
       G_CONF, G_REASON, G_LINE, G_COLS, G_UID_TABLE, G_SIZE };

/* A value of a row: 's' a str (its bytes, or its object: see cell_utf8 / cell_obj), 'i' an
 * int, 'g' a float, 'N' None, 'T' True, 'F' False, 'o' another object (`obj`). */
typedef struct {
    char t;
    char ascii;      /* a str: its bytes are ASCII */
    int32_t ref;     /* a str read from a blob: its reference number there (-1: none) */
    Py_ssize_t n;    /* a str's bytes: their length */
    const char *p;   /* a str's bytes (UTF-8; a blob's non-ASCII: as marshal wrote them) */
    PyObject *obj;   /* a str's object when there is one; an 'o' (borrowed) */
    int64_t i;
    double d;
} cell_t;

/* What one call made and must drop: the strs made from a blob's bytes, by reference number
 * (each made once) or not referenced (kept in `made`). */
/* What a str read from a blob was numbered as, by its reference number: a uid, a relation,
 * a reason (each of an edge: looked up once per blob, not once per edge) */
enum { AS_UID, AS_REL, AS_REASON, AS_SIZE };

typedef struct {
    PyObject **by_ref;
    int32_t *as[AS_SIZE]; /* by reference number: the number + 1 (0: not yet); NULL: none */
    Py_ssize_t nrefs;
    PyObject *made; /* a list, or NULL */
} objs_t;

static void objs_clear(objs_t *o) {
    for (Py_ssize_t i = 0; i < o->nrefs; i++) Py_XDECREF(o->by_ref[i]);
    PyMem_Free(o->by_ref);
    for (int k = 0; k < AS_SIZE; k++) PyMem_Free(o->as[k]);
    Py_XDECREF(o->made);
}

/* The number cell `c` was given as `as` in this blob (-1: not yet) */
static inline int32_t numbered(const objs_t *o, const cell_t *c, int as) {
    return c->ref >= 0 && o->as[as] != NULL ? o->as[as][c->ref] - 1 : -1;
}

static inline void number_as(objs_t *o, const cell_t *c, int as, int32_t no) {
    if (c->ref >= 0 && o->as[as] != NULL) o->as[as][c->ref] = no + 1;
}

/* The str object of a str cell, made from its bytes at its first ask (borrowed: `o` holds
 * it); NULL on error. A blob's bytes are read as marshal reads them (surrogatepass). */
static PyObject *cell_obj(cell_t *c, objs_t *o) {
    if (c->obj != NULL) return c->obj;
    if (c->ref >= 0 && o->by_ref[c->ref] != NULL) return c->obj = o->by_ref[c->ref];
    PyObject *s;
    if (c->ascii) {
        s = PyUnicode_New(c->n, 127);
        if (s != NULL) memcpy(PyUnicode_1BYTE_DATA(s), c->p, (size_t)c->n);
    } else {
        s = PyUnicode_DecodeUTF8(c->p, c->n, "surrogatepass");
    }
    if (s == NULL) return NULL;
    if (c->ref >= 0) {
        o->by_ref[c->ref] = s;
    } else {
        if (o->made == NULL && (o->made = PyList_New(0)) == NULL) {
            Py_DECREF(s);
            return NULL;
        }
        int bad = PyList_Append(o->made, s);
        Py_DECREF(s);
        if (bad) return NULL;
    }
    return c->obj = s;
}

/* The UTF-8 of a str cell (None: empty); NULL on error. A str that UTF-8 cannot hold (a lone
 * surrogate) is an error, as Python's encoder says. */
static const char *cell_utf8(cell_t *c, objs_t *o, Py_ssize_t *n) {
    if (c->t == 'N') {
        *n = 0;
        return "";
    }
    if (c->t != 's') {
        PyErr_SetString(PyExc_TypeError, "gather_file: a string column holds no str");
        return NULL;
    }
    if (c->ascii) {
        *n = c->n;
        return c->p;
    }
    PyObject *s = cell_obj(c, o);
    return s == NULL ? NULL : PyUnicode_AsUTF8AndSize(s, n);
}

/* The cell of a Python value (of a row gather_file is given); -1 on error. */
static int cell_of(PyObject *v, cell_t *c) {
    c->ref = -1;
    c->obj = v; /* (borrowed: the rows hold it) */
    c->p = NULL;
    if (PyUnicode_Check(v)) {
        c->t = 's';
        c->ascii = (char)PyUnicode_IS_ASCII(v);
        if (c->ascii) {
            c->p = (const char *)PyUnicode_1BYTE_DATA(v);
            c->n = PyUnicode_GET_LENGTH(v);
        }
    } else if (v == Py_None) {
        c->t = 'N';
    } else if (v == Py_True || v == Py_False) {
        c->t = v == Py_True ? 'T' : 'F';
    } else if (PyLong_Check(v)) {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred()) return -1;
        c->t = 'i';
        c->i = x;
    } else if (PyFloat_Check(v)) {
        c->t = 'g';
        c->d = PyFloat_AS_DOUBLE(v);
    } else {
        c->t = 'o';
    }
    return 0;
}

/* ------------------------------------------------------------------ a blob read as cells */

#define FLAG_REF 0x80

typedef struct {
    const unsigned char *p, *end;
    cell_t *refs; /* by reference number: the scalars flagged (a container's: t 0) */
    Py_ssize_t nrefs, cap;
} reader_t;

/* 1 read, 0 not a blob this reader reads (the caller decodes it), -1 error */
static int read_n(reader_t *r, Py_ssize_t n, const unsigned char **at) {
    if (r->end - r->p < n) return 0;
    *at = r->p;
    r->p += n;
    return 1;
}

static int read_i32(reader_t *r, int32_t *v) {
    const unsigned char *b;
    if (!read_n(r, 4, &b)) return 0;
    *v = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                   (uint32_t)b[3] << 24);
    return 1;
}

static int add_ref(reader_t *r, const cell_t *c) {
    if (r->nrefs == r->cap) {
        Py_ssize_t cap = r->cap ? 2 * r->cap : 256;
        cell_t *refs = PyMem_Realloc(r->refs, (size_t)cap * sizeof *refs);
        if (refs == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        r->refs = refs;
        r->cap = cap;
    }
    r->refs[r->nrefs++] = *c;
    return 1;
}

/* A scalar value into `c` (the types marshal writes for a row's values) */
static int read_value(reader_t *r, cell_t *c) {
    const unsigned char *b;
    if (!read_n(r, 1, &b)) return 0;
    int flag = *b & FLAG_REF, type = *b & ~FLAG_REF;
    c->ref = -1;
    c->obj = NULL;
    c->p = NULL;
    int32_t n = 0;
    switch (type) {
    case 'r':
        if (!read_i32(r, &n) || n < 0 || n >= r->nrefs || r->refs[n].t == 0) return 0;
        *c = r->refs[n];
        return 1;
    case 'N': case 'T': case 'F':
        c->t = (char)type;
        return flag ? 0 : 1;
    case 'i':
        if (!read_i32(r, &n)) return 0;
        c->t = 'i';
        c->i = n;
        break;
    case 'g': {
        if (!read_n(r, 8, &b)) return 0;
        double d = PyFloat_Unpack8((const char *)b, 1);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        c->t = 'g';
        c->d = d;
        break;
    }
    case 'z': case 'Z': case 'a': case 'A': case 'u': case 't':
        if (type == 'z' || type == 'Z') {
            if (!read_n(r, 1, &b)) return 0;
            n = *b;
        } else if (!read_i32(r, &n) || n < 0) {
            return 0;
        }
        c->t = 's';
        c->ascii = type != 'u' && type != 't';
        c->n = n;
        if (!read_n(r, n, &b)) return 0;
        c->p = (const char *)b;
        if (flag) c->ref = (int32_t)r->nrefs;
        break;
    default:
        return 0;
    }
    return flag ? add_ref(r, c) : 1;
}

/* A tuple or list header: its length; a flagged one takes a reference number (never read
 * as a value here) */
static int read_seq(reader_t *r, int list, Py_ssize_t *n) {
    const unsigned char *b;
    if (!read_n(r, 1, &b)) return 0;
    int flag = *b & FLAG_REF, type = *b & ~FLAG_REF;
    int32_t k;
    if (list ? type != '[' : type != ')' && type != '(') return 0;
    if (type == ')') {
        if (!read_n(r, 1, &b)) return 0;
        k = *b;
    } else if (!read_i32(r, &k) || k < 0) {
        return 0;
    }
    *n = k;
    cell_t none = {0};
    return flag ? add_ref(r, &none) : 1;
}

/* A list of `width`-tuples into cells (grown to hold them: *cells, *cap), their count in
 * *rows; `width` -1: any width, the cells not kept (only counted) */
static int read_rows(reader_t *r, Py_ssize_t width, cell_t **cells, Py_ssize_t *cap,
                     Py_ssize_t *rows) {
    Py_ssize_t n, k;
    int ok = read_seq(r, 1, &n);
    if (ok <= 0) return ok;
    if (n > (r->end - r->p) / 2) return 0; /* (each row takes 2 bytes at least) */
    if (width >= 0 && n * width > *cap) {
        if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(cell_t) / (width ? width : 1)) return 0;
        cell_t *more = PyMem_Realloc(*cells, (size_t)(n * width) * sizeof(cell_t));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *cells = more;
        *cap = n * width;
    }
    cell_t skip;
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((ok = read_seq(r, 0, &k)) <= 0) return ok;
        if (width >= 0 && k != width) return 0;
        for (Py_ssize_t f = 0; f < k; f++)
            if ((ok = read_value(r, width >= 0 ? &(*cells)[i * width + f] : &skip)) <= 0)
                return ok;
    }
    *rows = n;
    return 1;
}

/* ------------------------------------------------------------------ the gathering */

/* n more bytes at the end of `ba`, or NULL (an exception set). The room doubles when it
 * runs out: a bytearray's own growth (by an eighth) copied each column ~8 times over (a
 * quarter of the gather's instructions on Django). Resizing down to at least half of the room
 * only sets the size. */
static char *extend(PyObject *ba, Py_ssize_t n) {
    Py_ssize_t at = PyByteArray_GET_SIZE(ba), room = ((PyByteArrayObject *)ba)->ob_alloc;
    if (at + n >= room) { /* (the room holds a trailing NUL) */
        Py_ssize_t want = Py_MAX(2 * room, at + n);
        if (PyByteArray_Resize(ba, Py_MAX(want, 64)) < 0) return NULL;
    }
    if (PyByteArray_Resize(ba, at + n) < 0) return NULL;
    return PyByteArray_AS_STRING(ba) + at;
}

static int put_i32(PyObject *ba, int32_t v) {
    char *p = extend(ba, 4);
    if (p == NULL) return -1;
    memcpy(p, &v, 4);
    return 0;
}

/* The numbering of the uids: the list number -> uid Python keeps (FullGraph), and a table of
 * the numbers by the uids' UTF-8 bytes (a bytearray of `uslot_t`, its size a power of two, at
 * most half full), so a uid read from a blob is looked up by its bytes: made a str and looked
 * up in a dict (siphash, the dict's probes), each uid of each blob cost ~0.15 G of the ~0.49 G
 * instructions of Django's gathering. A str is made for a uid at its first sight only, and
 * kept in the list alone: the dict uid -> number the table made redundant cost ~1,000
 * instructions a uid to fill (Django: 53 M of the gathering's 403 M) and ~4 MB. */
typedef struct {
    uint64_t hash;
    int32_t no; /* the number + 1; 0: a free slot */
    int32_t unused;
} uslot_t;

typedef struct {
    PyObject *names, *table;
} uids_t;

/* The UTF-8 of the str `s` (NULL on error). */
static const char *str_utf8(PyObject *s, Py_ssize_t *n) {
    if (PyUnicode_IS_ASCII(s)) {
        *n = PyUnicode_GET_LENGTH(s);
        return (const char *)PyUnicode_1BYTE_DATA(s);
    }
    return PyUnicode_AsUTF8AndSize(s, n);
}

/* The table twice as large (or made), every number placed again; -1 on error. */
static int grow_table(uids_t *u) {
    Py_ssize_t size = PyByteArray_GET_SIZE(u->table), count = PyList_GET_SIZE(u->names);
    Py_ssize_t slots = size ? 2 * (size / (Py_ssize_t)sizeof(uslot_t)) : 1 << 12;
    while (2 * (count + 1) > slots) slots *= 2;
    if (PyByteArray_Resize(u->table, slots * (Py_ssize_t)sizeof(uslot_t)) < 0) return -1;
    uslot_t *t = (uslot_t *)PyByteArray_AS_STRING(u->table);
    memset(t, 0, (size_t)slots * sizeof *t);
    size_t mask = (size_t)slots - 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t n;
        const char *p = str_utf8(PyList_GET_ITEM(u->names, i), &n);
        if (p == NULL) return -1;
        uint64_t h = hash_bytes(p, n);
        size_t s = (size_t)h & mask;
        while (t[s].no) s = (s + 1) & mask;
        t[s] = (uslot_t){h, (int32_t)(i + 1), 0};
    }
    return 0;
}

/* The number of `key` in the numbering `no` (a dict; `names` lists its keys by number),
 * given the next one at its first sight; -1 on error. */
static Py_ssize_t number_of(PyObject *no, PyObject *names, PyObject *key) {
    PyObject *v = PyDict_GetItemWithError(no, key); /* borrowed */
    if (v != NULL) return PyLong_AsSsize_t(v);
    if (PyErr_Occurred()) return -1;
    Py_ssize_t n = PyList_GET_SIZE(names);
    PyObject *num = PyLong_FromSsize_t(n);
    if (num == NULL) return -1;
    int bad = PyDict_SetItem(no, key, num) < 0 || PyList_Append(names, key) < 0;
    Py_DECREF(num);
    return bad ? -1 : n;
}

/* The number of the uid in cell `c`; -1 on error. */
static int32_t uid_number(uids_t *u, cell_t *c, objs_t *o) {
    if (c->t != 's') { /* (the uids are read as UTF-8 by starts_with) */
        PyErr_SetString(PyExc_TypeError, "gather_file: a uid is not a str");
        return -1;
    }
    int32_t no = numbered(o, c, AS_UID);
    if (no >= 0) return no;
    Py_ssize_t n, m;
    const char *p = cell_utf8(c, o, &n);
    if (p == NULL) return -1;
    Py_ssize_t count = PyList_GET_SIZE(u->names);
    if (2 * (count + 1) > PyByteArray_GET_SIZE(u->table) / (Py_ssize_t)sizeof(uslot_t) &&
        grow_table(u) < 0)
        return -1;
    uslot_t *t = (uslot_t *)PyByteArray_AS_STRING(u->table);
    size_t mask = (size_t)(PyByteArray_GET_SIZE(u->table) / (Py_ssize_t)sizeof(uslot_t)) - 1;
    uint64_t h = hash_bytes(p, n);
    size_t s = (size_t)h & mask;
    for (; t[s].no; s = (s + 1) & mask) {
        if (t[s].hash != h) continue;
        const char *q = str_utf8(PyList_GET_ITEM(u->names, t[s].no - 1), &m);
        if (q == NULL) return -1;
        if (m == n && memcmp(p, q, (size_t)n) == 0) break;
    }
    if (t[s].no) {
        no = t[s].no - 1;
    } else { /* its first sight: numbered (its place in the list), then placed */
        PyObject *key = cell_obj(c, o);
        if (key == NULL || PyList_Append(u->names, key) < 0) return -1;
        Py_ssize_t k = PyList_GET_SIZE(u->names) - 1;
        if (k >= INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "gather_file: too many uids");
            return -1;
        }
        no = (int32_t)k;
        t[s] = (uslot_t){h, no + 1, 0};
    }
    number_as(o, c, AS_UID, no);
    return no;
}

/* The int of an int cell (a bool counts, as Python's int() of it) into *x; -1 on error. */
static int int_of(const cell_t *c, int64_t *x, const char *what) {
    if (c->t == 'i' || c->t == 'T' || c->t == 'F') {
        *x = c->t == 'i' ? c->i : c->t == 'T';
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "gather_file: %s holds no int", what);
    return -1;
}

/* Column `c` (kind 's', 'i' or 'b': [values, offsets, validity]) of `n` rows of `width`
 * cells. */
static int put_column(PyObject *col, char kind, cell_t *cells, Py_ssize_t n, Py_ssize_t width,
                      Py_ssize_t c, objs_t *o) {
    PyObject *values = PyList_GET_ITEM(col, 0), *offsets = PyList_GET_ITEM(col, 1);
    char *valid = extend(PyList_GET_ITEM(col, 2), n);
    if (valid == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) valid[i] = cells[i * width + c].t != 'N';
    if (kind == 's') {
        Py_ssize_t total = 0, len;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (cell_utf8(&cells[i * width + c], o, &len) == NULL) return -1;
            total += len;
        }
        Py_ssize_t at = PyByteArray_GET_SIZE(values);
        if (at + total > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "gather_file: a string column over 2 GB");
            return -1;
        }
        char *out = extend(values, total), *ends = extend(offsets, 4 * n);
        if (out == NULL || ends == NULL) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            const char *s = cell_utf8(&cells[i * width + c], o, &len);
            memcpy(out, s, (size_t)len);
            out += len;
            at += len;
            int32_t end = (int32_t)at;
            memcpy(ends + 4 * i, &end, 4);
        }
        return 0;
    }
    if (kind == 'i') {
        char *out = extend(values, 8 * n);
        if (out == NULL) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            const cell_t *v = &cells[i * width + c];
            int64_t x = 0;
            if (v->t != 'N' && int_of(v, &x, "an int column") < 0) return -1;
            memcpy(out + 8 * i, &x, 8);
        }
        return 0;
    }
    char *out = extend(values, n);
    if (out == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        char t = cells[i * width + c].t;
        if (t != 'N' && t != 'T' && t != 'F') {
            PyErr_SetString(PyExc_TypeError, "gather_file: a bool column holds no bool");
            return -1;
        }
        out[i] = t == 'T';
    }
    return 0;
}

static int put_symbols(PyObject **g, uids_t *u, const char *kinds, Py_ssize_t ncols,
                       cell_t *cells, Py_ssize_t n, objs_t *o) {
    char *nums = extend(g[G_SYMS], 4 * n);
    if (nums == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t no = uid_number(u, &cells[i * (ncols + 1)], o);
        if (no < 0) return -1;
        memcpy(nums + 4 * i, &no, 4);
    }
    for (Py_ssize_t c = 0; c < ncols; c++)
        if (put_column(PyList_GET_ITEM(g[G_COLS], c), kinds[c], cells, n, ncols + 1, c + 1,
                       o) < 0)
            return -1;
    return 0;
}

/* str cell `c` starts with the bytes `p` (of length np). */
static int starts_with(cell_t *c, objs_t *o, const char *p, Py_ssize_t np) {
    Py_ssize_t n;
    const char *u = c->ascii || c->p != NULL ? (n = c->n, c->p) : cell_utf8(c, o, &n);
    if (u == NULL) return -1;
    return n >= np && memcmp(u, p, (size_t)np) == 0;
}

/* Appends the `n` edges (6 cells each); the indices of those whose source is not `mine`
 * (`path::...`) go to `foreign`. The sources are numbered before the targets, as the Python
 * way does. */
static int put_edges(PyObject **g, uids_t *u, cell_t *edges, Py_ssize_t n, const char *mine,
                     Py_ssize_t nmine, const char *ext, Py_ssize_t next, PyObject *foreign,
                     objs_t *o) {
    char *rel = extend(g[G_REL], n), *src = extend(g[G_SRC], 4 * n);
    char *conf = extend(g[G_CONF], 8 * n), *reason = extend(g[G_REASON], 2 * n);
    char *line = extend(g[G_LINE], 4 * n);
    if (rel == NULL || src == NULL || conf == NULL || reason == NULL || line == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        cell_t *e = &edges[6 * i];
        long rn = numbered(o, &e[0], AS_REL);
        if (rn < 0) {
            PyObject *name = e[0].t == 's' ? cell_obj(&e[0], o) : e[0].obj;
            if (name == NULL) return -1;
            PyObject *r = PyDict_GetItemWithError(g[G_REL_NO], name); /* borrowed */
            if (r == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
                return -1;
            }
            if ((rn = PyLong_AsLong(r)) < 0 || rn > INT8_MAX) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "gather_file: a relation's number");
                return -1;
            }
            number_as(o, &e[0], AS_REL, (int32_t)rn);
        }
        rel[i] = (char)rn;
        int32_t sn = uid_number(u, &e[1], o);
        if (sn < 0) return -1;
        memcpy(src + 4 * i, &sn, 4);
        double cf;
        if (e[3].t == 'g') {
            cf = e[3].d;
        } else {
            int64_t x;
            if (int_of(&e[3], &x, "a confidence") < 0) return -1;
            cf = (double)x;
        }
        memcpy(conf + 8 * i, &cf, 8);
        Py_ssize_t rno = numbered(o, &e[4], AS_REASON);
        if (rno < 0) {
            PyObject *why = e[4].t == 's' ? cell_obj(&e[4], o) : e[4].obj;
            if (why == NULL || (rno = number_of(g[G_REASON_NO], g[G_REASONS], why)) < 0)
                return -1;
            if (rno > INT16_MAX) {
                PyErr_SetString(PyExc_OverflowError, "gather_file: too many reasons");
                return -1;
            }
            number_as(o, &e[4], AS_REASON, (int32_t)rno);
        }
        int16_t r16 = (int16_t)rno;
        memcpy(reason + 2 * i, &r16, 2);
        int64_t ln;
        if (int_of(&e[5], &ln, "a line") < 0) return -1;
        if (ln < INT32_MIN || ln > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "gather_file: a line beyond int32");
            return -1;
        }
        int32_t l32 = (int32_t)ln;
        memcpy(line + 4 * i, &l32, 4);
        int is_mine = starts_with(&e[1], o, mine, nmine);
        if (is_mine < 0) return -1;
        if (!is_mine) {
            PyObject *at = PyLong_FromSsize_t(i);
            int bad = at == NULL || PyList_Append(foreign, at) < 0;
            Py_XDECREF(at);
            if (bad) return -1;
        }
    }
    char *dst = extend(g[G_DST], 4 * n);
    if (dst == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        cell_t *d = &edges[6 * i + 2];
        int32_t dn = uid_number(u, d, o);
        if (dn < 0) return -1;
        memcpy(dst + 4 * i, &dn, 4);
        int is_ext = starts_with(d, o, ext, next);
        if (is_ext < 0) return -1;
        if (is_ext && put_i32(g[G_EXT], dn) < 0) return -1;
    }
    return 0;
}

/* The gathered state `glist` checked against `kinds`; its items, or NULL (TypeError set). */
static PyObject **state_of(PyObject *glist, const char *kinds, Py_ssize_t nkinds) {
    if (PyList_GET_SIZE(glist) != G_SIZE) {
        PyErr_SetString(PyExc_ValueError, "gather_file: the gathered state has another shape");
        return NULL;
    }
    PyObject **g = ((PyListObject *)glist)->ob_item;
    int ok = PyDict_Check(g[G_UID_NO]) && PyList_Check(g[G_UIDS]) && PyDict_Check(g[G_REL_NO]) &&
             PyDict_Check(g[G_REASON_NO]) && PyList_Check(g[G_REASONS]) &&
             PyList_Check(g[G_COLS]) && PyList_GET_SIZE(g[G_COLS]) == nkinds &&
             PyByteArray_CheckExact(g[G_UID_TABLE]);
    for (int k = G_SYMS; ok && k <= G_LINE; k++) ok = PyByteArray_CheckExact(g[k]);
    for (Py_ssize_t c = 0; ok && c < nkinds; c++) {
        PyObject *col = PyList_GET_ITEM(g[G_COLS], c);
        ok = PyList_Check(col) && PyList_GET_SIZE(col) == 3 &&
             PyByteArray_CheckExact(PyList_GET_ITEM(col, 0)) &&
             PyByteArray_CheckExact(PyList_GET_ITEM(col, 2)) &&
             (kinds[c] == 's' ? PyByteArray_CheckExact(PyList_GET_ITEM(col, 1))
                              : kinds[c] == 'i' || kinds[c] == 'b');
    }
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "gather_file: the gathered state has another shape");
        return NULL;
    }
    return g;
}

/* The rows and edges (as cells) gathered into `g`; the indices of the other files' edges, or
 * NULL on error. */
static PyObject *gather(PyObject **g, const char *kinds, Py_ssize_t nkinds, const char *path,
                        Py_ssize_t npath, const char *ext, Py_ssize_t next, cell_t *symbols,
                        Py_ssize_t nsym, cell_t *edges, Py_ssize_t nedges, objs_t *o) {
    /* `path::`, what the uids of the file's own symbols start with */
    char *mine = PyMem_Malloc((size_t)npath + 3);
    PyObject *foreign = PyList_New(0);
    if (mine == NULL || foreign == NULL) {
        PyMem_Free(mine);
        Py_XDECREF(foreign);
        return PyErr_NoMemory();
    }
    memcpy(mine, path, (size_t)npath);
    memcpy(mine + npath, "::", 3);
    uids_t u = {g[G_UIDS], g[G_UID_TABLE]};
    if (put_symbols(g, &u, kinds, nkinds, symbols, nsym, o) < 0 ||
        put_edges(g, &u, edges, nedges, mine, npath + 2, ext, next, foreign, o) < 0) {
        Py_CLEAR(foreign);
    }
    PyMem_Free(mine);
    return foreign;
}

/* Python's rows as cells: `width` values each; NULL on error (a row of another shape). */
static cell_t *cells_of_rows(PyObject *rows, Py_ssize_t width, const char *what) {
    Py_ssize_t n = PyList_GET_SIZE(rows);
    cell_t *cells = PyMem_Malloc((size_t)(n * width + 1) * sizeof *cells);
    if (cells == NULL) return (cell_t *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != width) {
            PyErr_Format(PyExc_TypeError, "gather_file: %s of another shape", what);
            PyMem_Free(cells);
            return NULL;
        }
        for (Py_ssize_t f = 0; f < width; f++) {
            if (cell_of(PyTuple_GET_ITEM(row, f), &cells[i * width + f]) < 0) {
                PyMem_Free(cells);
                return NULL;
            }
        }
    }
    return cells;
}

/* gather_file(g, kinds, path, external_prefix, symbols, edges) -> list of the indices of the
 * edges whose source is another file's (not `path::...`). */
PyObject *core_gather_file(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *glist, *symbols, *edges;
    const char *kinds, *path, *ext;
    Py_ssize_t nkinds, npath, next;
    if (!PyArg_ParseTuple(args, "O!s#s#s#O!O!:gather_file", &PyList_Type, &glist, &kinds, &nkinds,
                          &path, &npath, &ext, &next, &PyList_Type, &symbols, &PyList_Type,
                          &edges))
        return NULL;
    PyObject **g = state_of(glist, kinds, nkinds);
    if (g == NULL) return NULL;
    cell_t *sym = cells_of_rows(symbols, nkinds + 1, "a symbol row");
    cell_t *edg = sym == NULL ? NULL : cells_of_rows(edges, 6, "an edge");
    PyObject *foreign = NULL;
    objs_t o = {NULL, {NULL}, 0, NULL};
    if (edg != NULL)
        foreign = gather(g, kinds, nkinds, path, npath, ext, next, sym, PyList_GET_SIZE(symbols),
                         edg, PyList_GET_SIZE(edges), &o);
    objs_clear(&o);
    PyMem_Free(sym);
    PyMem_Free(edg);
    return foreign;
}

/* gather_blob(g, kinds, path, external_prefix, blob) -> (the other files' edges as (rel,
 * source, target), unresolved sites, calls total, calls builtin), or None when the blob holds
 * what this reader does not read (a value marshal wrote some other way: the caller decodes it
 * and calls gather_file). `blob` is a resolved file's (indexer/state.py resolved_blob). */
PyObject *core_gather_blob(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *glist;
    const char *kinds, *path, *ext;
    Py_ssize_t nkinds, npath, next;
    Py_buffer blob;
    if (!PyArg_ParseTuple(args, "O!s#s#s#y*:gather_blob", &PyList_Type, &glist, &kinds, &nkinds,
                          &path, &npath, &ext, &next, &blob))
        return NULL;
    PyObject *out = NULL, *foreign = NULL;
    PyObject **g = state_of(glist, kinds, nkinds);
    reader_t r = {blob.buf, (const unsigned char *)blob.buf + blob.len, NULL, 0, 0};
    cell_t *sym = NULL, *edg = NULL, counts[2];
    Py_ssize_t nsym = 0, nedges = 0, nunres = 0, symcap = 0, edgcap = 0, top;
    objs_t o = {NULL, {NULL}, 0, NULL};
    int ok = g == NULL ? -1 : read_seq(&r, 0, &top);
    if (ok > 0 && top != 5) ok = 0;
    if (ok > 0) ok = read_rows(&r, nkinds + 1, &sym, &symcap, &nsym);
    if (ok > 0) ok = read_rows(&r, 6, &edg, &edgcap, &nedges);
    if (ok > 0) ok = read_rows(&r, -1, NULL, NULL, &nunres);
    if (ok > 0) ok = read_value(&r, &counts[0]);
    if (ok > 0) ok = read_value(&r, &counts[1]);
    if (ok > 0 && (counts[0].t != 'i' || counts[1].t != 'i' || r.p != r.end)) ok = 0;
    /* the strs looked up in dicts are strs (else gather_file's way: Python's objects) */
    for (Py_ssize_t i = 0; ok > 0 && i < nsym; i++) ok = sym[i * (nkinds + 1)].t == 's';
    for (Py_ssize_t i = 0; ok > 0 && i < nedges; i++) {
        const cell_t *e = &edg[6 * i];
        ok = e[0].t == 's' && e[1].t == 's' && e[2].t == 's' && e[4].t == 's';
    }
    if (ok > 0) {
        o.nrefs = r.nrefs;
        o.by_ref = PyMem_Calloc((size_t)r.nrefs + 1, sizeof *o.by_ref);
        int none = o.by_ref == NULL;
        for (int k = 0; k < AS_SIZE; k++)
            none |= (o.as[k] = PyMem_Calloc((size_t)r.nrefs + 1, sizeof *o.as[k])) == NULL;
        if (none) {
            PyErr_NoMemory();
            ok = -1;
        }
    }
    if (ok > 0)
        foreign = gather(g, kinds, nkinds, path, npath, ext, next, sym, nsym, edg, nedges, &o);
    if (foreign != NULL) { /* indices -> (rel, source, target) of those edges */
        Py_ssize_t k = PyList_GET_SIZE(foreign);
        for (Py_ssize_t j = 0; j < k && foreign != NULL; j++) {
            Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(foreign, j));
            PyObject *key = NULL, *a = cell_obj(&edg[6 * i], &o);
            PyObject *b = a ? cell_obj(&edg[6 * i + 1], &o) : NULL;
            PyObject *c = b ? cell_obj(&edg[6 * i + 2], &o) : NULL;
            if (c != NULL) key = PyTuple_Pack(3, a, b, c);
            if (key == NULL) {
                Py_CLEAR(foreign);
                break;
            }
            PyList_SetItem(foreign, j, key); /* (steals key, drops the index) */
        }
    }
    if (foreign != NULL)
        out = Py_BuildValue("(NnLL)", foreign, nunres, (long long)counts[0].i,
                            (long long)counts[1].i);
    else if (ok == 0)
        out = Py_NewRef(Py_None);
    objs_clear(&o);
    PyMem_Free(r.refs);
    PyMem_Free(sym);
    PyMem_Free(edg);
    PyBuffer_Release(&blob);
    return out;
}
