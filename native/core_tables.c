/*
 * The Python project's tables (indexer/lang/python/tables.py) built and stored in C:
 * `tables_build` is Tables.build's loop over every file's summary, on the resolve host's
 * serial build (Django: 27.5K methods, 9K bases, ~19 ms in Python); `buckets_split` is
 * engine/buckets.py `_chunks` (a table's items marshalled PER_BUCKET at a time, each key's
 * CRC-32), on the host's way to its shared summary (~15 ms of Django's 23 ms `split`). Both
 * give what the Python gives, object for object and byte for byte; a shape they do not
 * read makes them answer None and the caller runs the Python.
 */
#include "core.h"

#include <marshal.h>

/* `items` as a tuple or list of exactly `n` items (borrowed), or NULL */
static PyObject *const *items_of(PyObject *items, Py_ssize_t n) {
    if (PyTuple_CheckExact(items) && PyTuple_GET_SIZE(items) == n && n > 0)
        return &PyTuple_GET_ITEM(items, 0);
    if (PyList_CheckExact(items) && PyList_GET_SIZE(items) == n && n > 0)
        return &PyList_GET_ITEM(items, 0);
    return NULL;
}

/* `seq` as a tuple or a list: its items and their number (borrowed); 0 when it is neither */
static int seq_of(PyObject *seq, PyObject *const **items, Py_ssize_t *n) {
    if (PyTuple_CheckExact(seq)) {
        *n = PyTuple_GET_SIZE(seq);
        *items = *n ? &PyTuple_GET_ITEM(seq, 0) : NULL;
        return 1;
    }
    if (PyList_CheckExact(seq)) {
        *n = PyList_GET_SIZE(seq);
        *items = *n ? &PyList_GET_ITEM(seq, 0) : NULL;
        return 1;
    }
    return 0;
}

/* table.setdefault(key, []).append((path, local)): 0, -1 on error */
static int add_pair(PyObject *table, PyObject *key, PyObject *path, PyObject *local) {
    PyObject *held = PyDict_GetItemWithError(table, key);
    if (held == NULL) {
        if (PyErr_Occurred()) return -1;
        PyObject *fresh = PyList_New(0);
        if (fresh == NULL) return -1;
        int rc = PyDict_SetItem(table, key, fresh);
        Py_DECREF(fresh);
        if (rc < 0) return -1;
        held = fresh;
    }
    if (!PyList_CheckExact(held)) {
        PyErr_SetString(PyExc_TypeError, "tables_build: a table's entry is not a list");
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, path, local);
    if (pair == NULL) return -1;
    int rc = PyList_Append(held, pair);
    Py_DECREF(pair);
    return rc;
}

/* tables_build(paths, summaries, methods, subclasses, reads) -> True, or None for a summary
 * of another shape (the tables may then hold some entries: the caller starts again). */
PyObject *core_tables_build(PyObject *self, PyObject *args) {
    PyObject *paths, *summaries, *methods, *subclasses, *reads;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OO!O!O!:tables_build", &PyList_Type, &paths, &summaries,
                          &PyDict_Type, &methods, &PyDict_Type, &subclasses, &PyDict_Type,
                          &reads))
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(paths); i++) {
        PyObject *path = PyList_GET_ITEM(paths, i);
        PyObject *summary = PyDict_CheckExact(summaries) ? PyDict_GetItemWithError(summaries, path)
                                                         : NULL;
        if (summary != NULL) {
            Py_INCREF(summary);
        } else {
            if (PyErr_Occurred()) return NULL;
            summary = PyObject_GetItem(summaries, path); /* (a Mapping; KeyError as Python's) */
            if (summary == NULL) return NULL;
        }
        PyObject *const *s = items_of(summary, 4);
        PyObject *const *file_methods, *const *classes, *const *read;
        Py_ssize_t n_methods, n_classes, n_read;
        if (s == NULL || !seq_of(s[1], &file_methods, &n_methods) ||
            !seq_of(s[2], &classes, &n_classes) || !seq_of(s[3], &read, &n_read) || n_read < 3) {
            Py_DECREF(summary);
            Py_RETURN_NONE;
        }
        int rc = 0;
        for (Py_ssize_t k = 0; k < n_methods && rc == 0; k++) {
            PyObject *const *m = items_of(file_methods[k], 2);
            if (m == NULL) {
                Py_DECREF(summary);
                Py_RETURN_NONE;
            }
            rc = add_pair(methods, m[0], path, m[1]);
        }
        for (Py_ssize_t k = 0; k < n_classes && rc == 0; k++) {
            PyObject *const *c;
            Py_ssize_t n_c;
            PyObject *const *bases;
            Py_ssize_t n_bases;
            if (!seq_of(classes[k], &c, &n_c) || n_c < 2 || !seq_of(c[1], &bases, &n_bases)) {
                Py_DECREF(summary);
                Py_RETURN_NONE;
            }
            for (Py_ssize_t b = 0; b < n_bases && rc == 0; b++)
                rc = add_pair(subclasses, bases[b], path, c[0]);
        }
        if (rc == 0) {
            int any = 0;
            for (int k = 0; k < 3 && !any && rc == 0; k++) {
                int t = PyObject_IsTrue(read[k]);
                if (t < 0) rc = -1;
                any = t > 0;
            }
            if (any && rc == 0) rc = PyDict_SetItem(reads, path, s[3]);
        }
        Py_DECREF(summary);
        if (rc < 0) return NULL;
    }
    Py_RETURN_TRUE;
}

/* ------------------------------------------------------------------ buckets */

static uint32_t crc_table[256];

static void crc_init(void) {
    if (crc_table[1]) return;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* zlib.crc32(data) */
static uint32_t crc32_of(const unsigned char *p, Py_ssize_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (Py_ssize_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* zlib.crc32(key.encode("utf-8", "surrogatepass")) into *out: 0, -1 on error */
static int key_crc(PyObject *key, uint32_t *out) {
    if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "buckets_split: a key is not a str");
        return -1;
    }
    if (PyUnicode_IS_ASCII(key)) {
        *out = crc32_of(PyUnicode_1BYTE_DATA(key), PyUnicode_GET_LENGTH(key));
        return 0;
    }
    PyObject *b = PyUnicode_AsEncodedString(key, "utf-8", "surrogatepass");
    if (b == NULL) return -1;
    *out = crc32_of((const unsigned char *)PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
    Py_DECREF(b);
    return 0;
}

/* buckets_split(table, per) -> (buckets, crcs): the table's items `per` at a time, each
 * group as marshal.dumps of a dict of them (buckets.py `_chunks`: the same bytes, the group's
 * dict held twice while it is written, as the Python's call holds it), and each key's
 * CRC-32 in item order as uint32 bytes. */
PyObject *core_buckets_split(PyObject *self, PyObject *args) {
    PyObject *table;
    Py_ssize_t per;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!n:buckets_split", &PyDict_Type, &table, &per)) return NULL;
    if (per < 1) {
        PyErr_SetString(PyExc_ValueError, "buckets_split: per must be positive");
        return NULL;
    }
    crc_init();
    Py_ssize_t n = PyDict_GET_SIZE(table), nb = (n + per - 1) / per;
    PyObject *blobs = PyTuple_New(nb);
    PyObject *crcs = PyBytes_FromStringAndSize(NULL, 4 * n);
    if (blobs == NULL || crcs == NULL) goto fail;
    uint32_t *crc = (uint32_t *)PyBytes_AS_STRING(crcs);
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    for (Py_ssize_t b = 0; b < nb; b++) {
        PyObject *chunk = PyDict_New();
        if (chunk == NULL) goto fail;
        for (Py_ssize_t j = 0; j < per && PyDict_Next(table, &pos, &key, &value); j++, k++) {
            if (key_crc(key, &crc[k]) < 0 || PyDict_SetItem(chunk, key, value) < 0) {
                Py_DECREF(chunk);
                goto fail;
            }
        }
        Py_INCREF(chunk); /* (marshal flags an object held more than once) */
        PyObject *blob = PyMarshal_WriteObjectToString(chunk, Py_MARSHAL_VERSION);
        Py_DECREF(chunk);
        Py_DECREF(chunk);
        if (blob == NULL) goto fail;
        PyTuple_SET_ITEM(blobs, b, blob);
    }
    if (k != n) {
        PyErr_SetString(PyExc_RuntimeError, "buckets_split: the table changed size");
        goto fail;
    }
    PyObject *out = PyTuple_Pack(2, blobs, crcs);
    Py_DECREF(blobs);
    Py_DECREF(crcs);
    return out;
fail:
    Py_XDECREF(blobs);
    Py_XDECREF(crcs);
    return NULL;
}

static int packed_order(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* crc_index(crcs, per) -> (crc, at): buckets.py `_index` of the CRC-32s `crcs` (uint32
 * bytes, item order): the CRCs sorted and each one's bucket (item // per), equal CRCs in
 * item order, as uint32 bytes. */
PyObject *core_crc_index(PyObject *self, PyObject *args) {
    Py_buffer in;
    Py_ssize_t per;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*n:crc_index", &in, &per)) return NULL;
    if (per < 1 || in.len % 4) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_ValueError, "crc_index: uint32 CRCs and a positive per");
        return NULL;
    }
    Py_ssize_t n = in.len / 4;
    uint64_t *packed = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *packed);
    PyObject *crc = PyBytes_FromStringAndSize(NULL, 4 * n);
    PyObject *at = PyBytes_FromStringAndSize(NULL, 4 * n);
    PyObject *out = NULL;
    if (packed == NULL || crc == NULL || at == NULL) {
        if (packed == NULL) PyErr_NoMemory();
        goto done;
    }
    const unsigned char *p = in.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t c;
        memcpy(&c, p + 4 * i, 4);
        packed[i] = (uint64_t)c << 32 | (uint64_t)(i / per);
    }
    qsort(packed, (size_t)n, sizeof *packed, packed_order);
    uint32_t *oc = (uint32_t *)PyBytes_AS_STRING(crc), *oa = (uint32_t *)PyBytes_AS_STRING(at);
    for (Py_ssize_t i = 0; i < n; i++) {
        oc[i] = (uint32_t)(packed[i] >> 32);
        oa[i] = (uint32_t)packed[i];
    }
    out = PyTuple_Pack(2, crc, at);
done:
    PyMem_Free(packed);
    Py_XDECREF(crc);
    Py_XDECREF(at);
    PyBuffer_Release(&in);
    return out;
}
