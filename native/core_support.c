/*
 * The native traversal core's support (see native/core.h): buffers, scalar arguments,
 * the CSR, traversal errors and the cached visit marks.
 */
#include "core.h"

static int host_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* Returns the single struct code of a 1-item format string, or 0. */
static char format_code(const char *fmt) {
    if (fmt == NULL) return 'B';
    if (*fmt == '@' || *fmt == '=') {
        fmt++;
    } else if (*fmt == '<') {
        if (!host_little_endian()) return 0;
        fmt++;
    } else if (*fmt == '>' || *fmt == '!') {
        if (host_little_endian()) return 0;
        fmt++;
    }
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
    return fmt[0];
}

static int code_matches(char code, int kind) {
    switch (kind) {
    case KIND_INT:
        return code != 0 && strchr("bhilqn", code) != NULL;
    case KIND_UINT:
        return code != 0 && strchr("BHILQN", code) != NULL;
    case KIND_FLOAT:
        return code != 0 && strchr("efd", code) != NULL;
    case KIND_MASK:
        return code == '?' || code == 'B' || code == 'b';
    default:
        return 0;
    }
}

/* Acquire `obj` as a 1-d C-contiguous buffer of items of the given kind and
 * size. Sets ValueError (never BufferError/TypeError) on mismatch. */
int buf_get(PyObject *obj, buf_t *b, const char *name, const char *dtype, int kind,
                   Py_ssize_t itemsize, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    b->held = 0;
    b->len = 0;
    if (PyObject_GetBuffer(obj, &b->view, flags) != 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: expected a %sC-contiguous 1-d array of dtype %s", name,
                     writable ? "writable " : "", dtype);
        return -1;
    }
    b->held = 1;
    if (b->view.ndim != 1 || b->view.itemsize != itemsize ||
        !code_matches(format_code(b->view.format), kind)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: expected a 1-d array of dtype %s (got ndim=%d, format '%s', itemsize %zd)",
                     name, dtype, b->view.ndim, b->view.format ? b->view.format : "B",
                     b->view.itemsize);
        PyBuffer_Release(&b->view);
        b->held = 0;
        return -1;
    }
    b->len = b->view.len / itemsize;
    return 0;
}

void buf_release(buf_t *b) {
    if (b->held) {
        PyBuffer_Release(&b->view);
        b->held = 0;
    }
}

/* Output buffers must not share memory with each other or with an input. */
static int buf_overlap(const buf_t *a, const buf_t *b) {
    const char *a0, *b0;
    if (!a->held || !b->held || a->view.len == 0 || b->view.len == 0) return 0;
    a0 = (const char *)a->view.buf;
    b0 = (const char *)b->view.buf;
    return a0 < b0 + b->view.len && b0 < a0 + a->view.len;
}

int check_outputs(const buf_t *const *outs, int n_outs, const buf_t *const *ins, int n_ins) {
    int i, j;
    for (i = 0; i < n_outs; i++) {
        for (j = i + 1; j < n_outs; j++)
            if (buf_overlap(outs[i], outs[j])) goto overlap;
        for (j = 0; j < n_ins; j++)
            if (buf_overlap(outs[i], ins[j])) goto overlap;
    }
    return 0;
overlap:
    PyErr_SetString(PyExc_ValueError, "output arrays must not share memory with each other or with inputs");
    return -1;
}

/* ------------------------------------------------------------------------- */
/* scalar arguments                                                          */

int arg_ll(PyObject *obj, const char *name, long long *out) {
    int overflow = 0;
    long long v;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_ValueError, "%s must be an int", name);
        return -1;
    }
    v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s is out of range", name);
        return -1;
    }
    *out = v;
    return 0;
}

int arg_mask(PyObject *obj, uint32_t *out) {
    long long v;
    if (arg_ll(obj, "type_mask", &v) != 0) return -1;
    if (v < 0 || v > 0xFFFFFFFFLL) {
        PyErr_SetString(PyExc_ValueError, "type_mask must be in [0, 2**32)");
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int arg_conf(PyObject *obj, double *out) {
    double v;
    if (!PyFloat_Check(obj) && !PyLong_Check(obj)) {
        PyErr_SetString(PyExc_ValueError, "min_confidence must be a number");
        return -1;
    }
    v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "min_confidence is out of range");
        return -1;
    }
    if (isnan(v)) {
        PyErr_SetString(PyExc_ValueError, "min_confidence must not be NaN");
        return -1;
    }
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* CSR                                                                       */

void csr_close(csr_t *c) {
    buf_release(&c->bp);
    buf_release(&c->bi);
    buf_release(&c->be);
    buf_release(&c->bc);
}

/* O(1) structural checks; row contents are checked where they are read. */
int csr_open(csr_t *c, PyObject *ip, PyObject *ix, PyObject *et, PyObject *cf) {
    memset(c, 0, sizeof(*c));
    if (buf_get(ip, &c->bp, "indptr", "int64", KIND_INT, 8, 0) != 0 ||
        buf_get(ix, &c->bi, "indices", "int32", KIND_INT, 4, 0) != 0 ||
        buf_get(et, &c->be, "edge_type", "uint8", KIND_UINT, 1, 0) != 0 ||
        buf_get(cf, &c->bc, "confidence", "float32", KIND_FLOAT, 4, 0) != 0) {
        csr_close(c);
        return -1;
    }
    c->indptr = (const int64_t *)c->bp.view.buf;
    c->indices = (const int32_t *)c->bi.view.buf;
    c->etype = (const uint8_t *)c->be.view.buf;
    c->conf = (const float *)c->bc.view.buf;
    c->nnz = c->bi.len;
    if (c->bp.len < 1) {
        PyErr_SetString(PyExc_ValueError, "indptr must have n_nodes + 1 >= 1 entries");
        goto fail;
    }
    c->n = c->bp.len - 1;
    if (c->n > (int64_t)INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "n_nodes exceeds the int32 id range");
        goto fail;
    }
    if (c->be.len != c->nnz || c->bc.len != c->nnz) {
        PyErr_Format(PyExc_ValueError,
                     "indices, edge_type and confidence must have the same length "
                     "(got %zd, %zd, %zd)",
                     c->bi.len, c->be.len, c->bc.len);
        goto fail;
    }
    if (c->indptr[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "indptr[0] must be 0");
        goto fail;
    }
    if (c->indptr[c->n] != c->nnz) {
        PyErr_Format(PyExc_ValueError, "indptr[-1] (%lld) must equal len(indices) (%lld)",
                     (long long)c->indptr[c->n], (long long)c->nnz);
        goto fail;
    }
    return 0;
fail:
    csr_close(c);
    return -1;
}

void set_traversal_error(int err, int64_t where) {
    switch (err) {
    case E_NOMEM:
        PyErr_NoMemory();
        break;
    case E_INDPTR:
        PyErr_Format(PyExc_ValueError, "corrupt CSR: indptr is not monotonic in [0, nnz] at row %lld",
                     (long long)where);
        break;
    case E_INDEX:
        PyErr_Format(PyExc_ValueError, "corrupt CSR: indices[%lld] is not a node id in [0, n)",
                     (long long)where);
        break;
    case E_CHANGED:
        PyErr_SetString(PyExc_ValueError, "an array was modified by another thread during the traversal");
        break;
    default:
        break;
    }
}

void mask_table(uint32_t mask, uint8_t allowed[256]) {
    int t;
    for (t = 0; t < 256; t++) allowed[t] = (t < 32) ? (uint8_t)((mask >> t) & 1u) : 0;
}

/* ------------------------------------------------------------------------- */
/* visit marks (visit_t: core.h)                                             */

static uint8_t *cache_mark = NULL;
static size_t cache_size = 0;
static uint8_t cache_stamp = 0;
static int cache_busy = 0;

int visit_begin(visit_t *v, int64_t n) {
    size_t need = (size_t)(n > 0 ? n : 1);
    if (!cache_busy && cache_mark != NULL && cache_size >= need) {
        cache_busy = 1;
        if (cache_stamp == UINT8_MAX) {
            memset(cache_mark, 0, cache_size);
            cache_stamp = 0;
        }
        v->mark = cache_mark;
        v->size = cache_size;
        v->stamp = ++cache_stamp;
        v->cached = 1;
        return 0;
    }
    v->mark = (uint8_t *)PyMem_RawCalloc(need, 1);
    if (v->mark == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    v->size = need;
    v->stamp = 1;
    v->cached = 0;
    return 0;
}

void visit_end(visit_t *v) {
    if (v->mark == NULL) return;
    if (v->cached) {
        cache_busy = 0;
    } else if (!cache_busy && v->size > cache_size) {
        PyMem_RawFree(cache_mark);
        cache_mark = v->mark;
        cache_size = v->size;
        cache_stamp = v->stamp;
    } else {
        PyMem_RawFree(v->mark);
    }
    v->mark = NULL;
}

int open_node_mask(PyObject *obj, buf_t *b, int64_t n, const uint8_t **out) {
    *out = NULL;
    b->held = 0;
    if (obj == Py_None) return 0;
    if (buf_get(obj, b, "node_mask", "bool or uint8", KIND_MASK, 1, 0) != 0) return -1;
    if (b->len != n) {
        PyErr_Format(PyExc_ValueError, "node_mask has length %zd, expected n_nodes = %lld", b->len,
                     (long long)n);
        buf_release(b);
        return -1;
    }
    *out = (const uint8_t *)b->view.buf;
    return 0;
}

int out_grow(out_t *o, Py_ssize_t more) {
    if (o->len + more <= o->cap) return 0;
    Py_ssize_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + more) cap *= 2;
    char *d = PyMem_Realloc(o->data, (size_t)cap);
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->data = d;
    o->cap = cap;
    return 0;
}

PyObject *out_answer(out_t *o, int r) {
    PyObject *blob = r > 0 ? PyBytes_FromStringAndSize(o->data, o->len)
                     : r == 0 ? Py_NewRef(Py_None)
                              : NULL;
    PyMem_Free(o->data);
    o->data = NULL;
    return blob;
}
