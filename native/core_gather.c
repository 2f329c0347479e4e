/*
 * gather_file: one resolved file's symbol rows and edges appended to a full build's gathered
 * graph (indexer/full_graph.py FullGraph, whose Python loops stay as the fallback and the
 * tests' reference): uids numbered in order of first sight, edges as typed arrays of numbers,
 * row columns as Arrow buffers. Every file of a full build passes here; the Python way made
 * a list per column, a dict lookup through `map` per uid and a Python object per value that
 * pyarrow then read back (~0.2 s of Django's build).
 *
 * The gathered state is Python's (FullGraph makes it, reads it, hands the buffers to Arrow
 * and numpy without a copy): `g` is a list of
 *   0 uid_no   dict  uid -> number (order of first sight)    1 uids  list  number -> uid
 *   2 rel_no   dict  relation -> its number                  3 reason_no  dict (first sight)
 *   4 reasons  list  number -> reason                        5 symbol numbers  int32
 *   6 numbers of external edge targets  int32               7..12 per edge: rel int8,
 *     src int32, dst int32, confidence float64, reason int16, line int32
 *   13 the row columns: a list, per column after the uid, of [values, offsets or None,
 *     validity] bytearrays: a string column's UTF-8 bytes and int32 offsets (a first 0), an
 *     int column's int64, a bool column's one byte per row; validity one byte per row (0:
 *     null, a None)
 * and `kinds` says each row column's kind ('s', 'i', 'b'). The bytearrays grow here; a
 * bytearray handed to Arrow is replaced in `g` first (an exported one cannot be resized).
 */
#include "core.h"

enum { G_UID_NO, G_UIDS, G_REL_NO, G_REASON_NO, G_REASONS, G_SYMS, G_EXT, G_REL, G_SRC, G_DST,
       G_CONF, G_REASON, G_LINE, G_COLS, G_SIZE };

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

/* The uids met last, by address: a uid a file names again is mostly the same object (the
 * blob's strings are shared), so most lookups skip the dict of every uid. */
#define SEEN_SLOTS 1024

typedef struct {
    PyObject *no, *names; /* the numbering: dict uid -> number, list number -> uid */
    /* obj: borrowed, held by the rows of the call; a slot is of this call when its stamp is
     * the call's (no clearing per call) */
    PyObject *obj[SEEN_SLOTS];
    int32_t num[SEEN_SLOTS];
    uint32_t stamp[SEEN_SLOTS], now;
} uids_t;

static uids_t seen_uids; /* (the GIL is held from start to end of a call) */

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

/* The number of the uid `key`; -1 on error. */
static int32_t uid_number(uids_t *u, PyObject *key) {
    size_t slot = ((uintptr_t)key >> 4) % SEEN_SLOTS;
    if (u->obj[slot] == key && u->stamp[slot] == u->now) return u->num[slot];
    if (!PyUnicode_Check(key)) { /* (the uids are read as UTF-8 by starts_with) */
        PyErr_SetString(PyExc_TypeError, "gather_file: a uid is not a str");
        return -1;
    }
    Py_ssize_t n = number_of(u->no, u->names, key);
    if (n < 0) return -1;
    if (n > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "gather_file: too many uids");
        return -1;
    }
    u->obj[slot] = key;
    u->num[slot] = (int32_t)n;
    u->stamp[slot] = u->now;
    return (int32_t)n;
}

/* The UTF-8 of a str cell (None: empty); NULL on error. */
static const char *utf8_of(PyObject *v, Py_ssize_t *n) {
    if (v == Py_None) {
        *n = 0;
        return "";
    }
    if (!PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "gather_file: a string column holds no str");
        return NULL;
    }
    if (PyUnicode_IS_ASCII(v)) {
        *n = PyUnicode_GET_LENGTH(v);
        return (const char *)PyUnicode_1BYTE_DATA(v);
    }
    return PyUnicode_AsUTF8AndSize(v, n);
}

/* Column `c` (kind 's', 'i' or 'b': [values, offsets, validity]) of every row. */
static int put_column(PyObject *col, char kind, PyObject *rows, Py_ssize_t c) {
    PyObject *values = PyList_GET_ITEM(col, 0), *offsets = PyList_GET_ITEM(col, 1);
    Py_ssize_t n = PyList_GET_SIZE(rows);
    char *valid = extend(PyList_GET_ITEM(col, 2), n);
    if (valid == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        valid[i] = PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), c) != Py_None;
    if (kind == 's') {
        Py_ssize_t total = 0, len;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (utf8_of(PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), c), &len) == NULL) return -1;
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
            const char *s = utf8_of(PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), c), &len);
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
            PyObject *v = PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), c);
            int64_t x = 0;
            if (v != Py_None) {
                if (!PyLong_Check(v)) {
                    PyErr_SetString(PyExc_TypeError, "gather_file: an int column holds no int");
                    return -1;
                }
                x = PyLong_AsLongLong(v);
                if (x == -1 && PyErr_Occurred()) return -1;
            }
            memcpy(out + 8 * i, &x, 8);
        }
        return 0;
    }
    char *out = extend(values, n);
    if (out == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), c);
        if (v != Py_None && !PyBool_Check(v)) {
            PyErr_SetString(PyExc_TypeError, "gather_file: a bool column holds no bool");
            return -1;
        }
        out[i] = v == Py_True;
    }
    return 0;
}

static int put_symbols(PyObject **g, uids_t *u, const char *kinds, Py_ssize_t ncols,
                       PyObject *rows) {
    Py_ssize_t n = PyList_GET_SIZE(rows);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != ncols + 1) {
            PyErr_SetString(PyExc_TypeError, "gather_file: a symbol row of another shape");
            return -1;
        }
    }
    char *nums = extend(g[G_SYMS], 4 * n);
    if (nums == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t no = uid_number(u, PyTuple_GET_ITEM(PyList_GET_ITEM(rows, i), 0));
        if (no < 0) return -1;
        memcpy(nums + 4 * i, &no, 4);
    }
    for (Py_ssize_t c = 0; c < ncols; c++)
        if (put_column(PyList_GET_ITEM(g[G_COLS], c), kinds[c], rows, c + 1) < 0) return -1;
    return 0;
}

/* `s` (a str) starts with the bytes `p` (of length np). */
static int starts_with(PyObject *s, const char *p, Py_ssize_t np) {
    Py_ssize_t n;
    const char *u = PyUnicode_IS_ASCII(s) ? (const char *)PyUnicode_1BYTE_DATA(s)
                                          : PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) return -1;
    if (PyUnicode_IS_ASCII(s)) n = PyUnicode_GET_LENGTH(s);
    return n >= np && memcmp(u, p, (size_t)np) == 0;
}

/* Appends the edges; the indices of those whose source is not `mine` (`path::...`) go to
 * `foreign`. The sources are numbered before the targets, as the Python way does. */
static int put_edges(PyObject **g, uids_t *u, PyObject *edges, const char *mine,
                     Py_ssize_t nmine, const char *ext, Py_ssize_t next, PyObject *foreign) {
    Py_ssize_t n = PyList_GET_SIZE(edges);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(edges, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 6) {
            PyErr_SetString(PyExc_TypeError, "gather_file: an edge of another shape");
            return -1;
        }
    }
    char *rel = extend(g[G_REL], n), *src = extend(g[G_SRC], 4 * n);
    char *conf = extend(g[G_CONF], 8 * n), *reason = extend(g[G_REASON], 2 * n);
    char *line = extend(g[G_LINE], 4 * n);
    if (rel == NULL || src == NULL || conf == NULL || reason == NULL || line == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(edges, i);
        PyObject *r = PyDict_GetItemWithError(g[G_REL_NO], PyTuple_GET_ITEM(e, 0)); /* borrowed */
        if (r == NULL) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(e, 0));
            return -1;
        }
        long rn = PyLong_AsLong(r);
        if (rn == -1 && PyErr_Occurred()) return -1;
        rel[i] = (char)rn;
        int32_t sn = uid_number(u, PyTuple_GET_ITEM(e, 1));
        if (sn < 0) return -1;
        memcpy(src + 4 * i, &sn, 4);
        double cf = PyFloat_AsDouble(PyTuple_GET_ITEM(e, 3));
        if (cf == -1.0 && PyErr_Occurred()) return -1;
        memcpy(conf + 8 * i, &cf, 8);
        Py_ssize_t rno = number_of(g[G_REASON_NO], g[G_REASONS], PyTuple_GET_ITEM(e, 4));
        if (rno < 0) return -1;
        if (rno > INT16_MAX) {
            PyErr_SetString(PyExc_OverflowError, "gather_file: too many reasons");
            return -1;
        }
        int16_t r16 = (int16_t)rno;
        memcpy(reason + 2 * i, &r16, 2);
        long ln = PyLong_AsLong(PyTuple_GET_ITEM(e, 5));
        if (ln == -1 && PyErr_Occurred()) return -1;
        if (ln < INT32_MIN || ln > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "gather_file: a line beyond int32");
            return -1;
        }
        int32_t l32 = (int32_t)ln;
        memcpy(line + 4 * i, &l32, 4);
        int is_mine = starts_with(PyTuple_GET_ITEM(e, 1), mine, nmine);
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
        PyObject *d = PyTuple_GET_ITEM(PyList_GET_ITEM(edges, i), 2);
        int32_t dn = uid_number(u, d);
        if (dn < 0) return -1;
        memcpy(dst + 4 * i, &dn, 4);
        int is_ext = starts_with(d, ext, next);
        if (is_ext < 0) return -1;
        if (is_ext && put_i32(g[G_EXT], dn) < 0) return -1;
    }
    return 0;
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
    if (PyList_GET_SIZE(glist) != G_SIZE) {
        PyErr_SetString(PyExc_ValueError, "gather_file: the gathered state has another shape");
        return NULL;
    }
    PyObject **g = ((PyListObject *)glist)->ob_item;
    int ok = PyDict_Check(g[G_UID_NO]) && PyList_Check(g[G_UIDS]) && PyDict_Check(g[G_REL_NO]) &&
             PyDict_Check(g[G_REASON_NO]) && PyList_Check(g[G_REASONS]) &&
             PyList_Check(g[G_COLS]) && PyList_GET_SIZE(g[G_COLS]) == nkinds;
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
    uids_t *u = &seen_uids;
    if (++u->now == 0) { /* wrapped: every slot's stamp is of an old call again */
        memset(u->stamp, 0, sizeof u->stamp);
        u->now = 1;
    }
    u->no = g[G_UID_NO];
    u->names = g[G_UIDS];
    if (put_symbols(g, u, kinds, nkinds, symbols) < 0 ||
        put_edges(g, u, edges, mine, npath + 2, ext, next, foreign) < 0) {
        Py_CLEAR(foreign);
    }
    PyMem_Free(mine);
    return foreign;
}
