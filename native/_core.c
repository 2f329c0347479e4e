/*
 * codeimpact native traversal core.
 *
 * Traversals over a CSR graph given as four 1-d C-contiguous buffers:
 *   indptr     int64  [n + 1]   row offsets, indptr[0] == 0, indptr[n] == nnz
 *   indices    int32  [nnz]     neighbour node ids in [0, n)
 *   edge_type  uint8  [nnz]     edge type code (codes >= 32 never match a mask)
 *   confidence float32[nnz]
 *
 * No numpy C API: everything goes through the buffer protocol, with format and
 * itemsize checks. Every entry point validates its arguments itself (shapes,
 * dtypes, lengths, id ranges) and the traversals check every row offset and
 * neighbour id they read, so corrupt arrays raise ValueError instead of
 * reading out of bounds. `validate_csr` is the full O(n + nnz) check.
 *
 * Work memory comes from the raw allocators (no GIL needed) and is freed on
 * every path; the traversals themselves run with the GIL released while all
 * buffers are held.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* buffers                                                                   */

enum { KIND_INT = 'i', KIND_UINT = 'u', KIND_FLOAT = 'f', KIND_MASK = 'm' };

typedef struct {
    Py_buffer view;
    int held;
    Py_ssize_t len; /* number of items */
} buf_t;

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
static int buf_get(PyObject *obj, buf_t *b, const char *name, const char *dtype, int kind,
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

static void buf_release(buf_t *b) {
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

static int check_outputs(const buf_t *const *outs, int n_outs, const buf_t *const *ins, int n_ins) {
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

static int arg_ll(PyObject *obj, const char *name, long long *out) {
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

static int arg_mask(PyObject *obj, uint32_t *out) {
    long long v;
    if (arg_ll(obj, "type_mask", &v) != 0) return -1;
    if (v < 0 || v > 0xFFFFFFFFLL) {
        PyErr_SetString(PyExc_ValueError, "type_mask must be in [0, 2**32)");
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int arg_conf(PyObject *obj, double *out) {
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

typedef struct {
    buf_t bp, bi, be, bc;
    const int64_t *indptr;
    const int32_t *indices;
    const uint8_t *etype;
    const float *conf;
    int64_t n, nnz;
} csr_t;

static void csr_close(csr_t *c) {
    buf_release(&c->bp);
    buf_release(&c->bi);
    buf_release(&c->be);
    buf_release(&c->bc);
}

/* O(1) structural checks; row contents are checked where they are read. */
static int csr_open(csr_t *c, PyObject *ip, PyObject *ix, PyObject *et, PyObject *cf) {
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

/* Errors found with the GIL released; reported after it is re-acquired. */
enum { E_OK = 0, E_NOMEM, E_INDPTR, E_INDEX, E_CHANGED };

static void set_traversal_error(int err, int64_t where) {
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

static inline int row_ok(const csr_t *c, int64_t u) {
    int64_t a = c->indptr[u], b = c->indptr[u + 1];
    return a >= 0 && a <= b && b <= c->nnz;
}

static void mask_table(uint32_t mask, uint8_t allowed[256]) {
    int t;
    for (t = 0; t < 256; t++) allowed[t] = (t < 32) ? (uint8_t)((mask >> t) & 1u) : 0;
}

/* ------------------------------------------------------------------------- */
/* validate_csr                                                              */

static PyObject *core_validate_csr(PyObject *self, PyObject *args) {
    PyObject *ip, *ix, *et, *cf;
    csr_t c;
    int err = E_OK;
    int64_t where = 0, u, e;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:validate_csr", &ip, &ix, &et, &cf)) return NULL;
    if (csr_open(&c, ip, ix, et, cf) != 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (u = 0; u < c.n; u++) {
        if (!row_ok(&c, u)) {
            err = E_INDPTR;
            where = u;
            break;
        }
    }
    if (err == E_OK) {
        const uint32_t n = (uint32_t)c.n;
        for (e = 0; e < c.nnz; e++) {
            if ((uint32_t)c.indices[e] >= n) {
                err = E_INDEX;
                where = e;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    csr_close(&c);
    if (err != E_OK) {
        set_traversal_error(err, where);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------- */
/* bfs                                                                       */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define PREFETCH(p) ((void)0)
#endif
#ifndef PF_PTR
#define PF_PTR 32 /* queue positions ahead: prefetch indptr[node] */
#endif
#ifndef PF_ROW
#define PF_ROW 16 /* queue positions ahead: prefetch the node's edge data */
#endif

/* Visit marks. A traversal marks node v as reached by writing the call's stamp
 * into mark[v], so a buffer can be reused without clearing it: one buffer is
 * cached between calls (taken and given back with the GIL held; a concurrent
 * call gets a fresh one), and it is zeroed only when the 8-bit stamp wraps (every 255 calls).
 * Small traversals on big graphs then cost nothing per node of the graph. */
typedef struct {
    uint8_t *mark;
    size_t size;
    uint8_t stamp;
    int cached;
} visit_t;

static uint8_t *cache_mark = NULL;
static size_t cache_size = 0;
static uint8_t cache_stamp = 0;
static int cache_busy = 0;

static int visit_begin(visit_t *v, int64_t n) {
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

static void visit_end(visit_t *v) {
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

static int open_node_mask(PyObject *obj, buf_t *b, int64_t n, const uint8_t **out) {
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

static PyObject *core_bfs(PyObject *self, PyObject *args) {
    PyObject *ip, *ix, *et, *cf, *src_o, *maxd_o, *mask_o, *minc_o, *nmask_o, *limit_o;
    PyObject *on_o, *od_o, *op_o;
    csr_t c;
    buf_t bs = {0}, bm = {0}, bn = {0}, bd = {0}, bpar = {0};
    long long max_depth, limit;
    uint32_t tmask;
    double min_conf;
    const uint8_t *nmask = NULL;
    visit_t vis = {NULL, 0, 0, 0};
    uint8_t allowed[256];
    int64_t cap, count = 0, head = 0, nsrc = 0, where = 0, i;
    int truncated = 0, err = E_OK;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOO:bfs", &ip, &ix, &et, &cf, &src_o, &maxd_o, &mask_o,
                          &minc_o, &nmask_o, &limit_o, &on_o, &od_o, &op_o))
        return NULL;
    if (arg_ll(maxd_o, "max_depth", &max_depth) != 0 || arg_mask(mask_o, &tmask) != 0 ||
        arg_conf(minc_o, &min_conf) != 0 || arg_ll(limit_o, "limit", &limit) != 0)
        return NULL;
    if (csr_open(&c, ip, ix, et, cf) != 0) return NULL;
    if (buf_get(src_o, &bs, "sources", "int64", KIND_INT, 8, 0) != 0) goto fail;
    if (open_node_mask(nmask_o, &bm, c.n, &nmask) != 0) goto fail;
    if (buf_get(on_o, &bn, "out_nodes", "int64", KIND_INT, 8, 1) != 0 ||
        buf_get(od_o, &bd, "out_depths", "int32", KIND_INT, 4, 1) != 0 ||
        buf_get(op_o, &bpar, "out_parents", "int64", KIND_INT, 8, 1) != 0)
        goto fail;
    {
        const buf_t *outs[] = {&bn, &bd, &bpar};
        const buf_t *ins[] = {&c.bp, &c.bi, &c.be, &c.bc, &bs, &bm};
        if (check_outputs(outs, 3, ins, 6) != 0) goto fail;
    }

    {
        const int64_t *src = (const int64_t *)bs.view.buf;
        for (i = 0; i < bs.len; i++) {
            if (src[i] < 0 || src[i] >= c.n) {
                PyErr_Format(PyExc_ValueError, "sources[%zd] = %lld is not a node id in [0, %lld)",
                             (Py_ssize_t)i, (long long)src[i], (long long)c.n);
                goto fail;
            }
        }
    }
    /* Number of entries written: each node at most once, sources first, then at
     * most `limit` others. */
    if (limit < 0 || limit >= c.n)
        cap = c.n;
    else
        cap = (bs.len + limit < c.n) ? bs.len + limit : c.n;
    if (bn.len < cap || bd.len < cap || bpar.len < cap) {
        PyErr_Format(PyExc_ValueError, "output arrays must hold at least %lld entries",
                     (long long)cap);
        goto fail;
    }
    if (visit_begin(&vis, c.n) != 0) goto fail;
    mask_table(tmask, allowed);

    Py_BEGIN_ALLOW_THREADS
    {
        const int64_t *src = (const int64_t *)bs.view.buf;
        int64_t *nodes = (int64_t *)bn.view.buf;
        int32_t *depths = (int32_t *)bd.view.buf;
        int64_t *parents = (int64_t *)bpar.view.buf;
        const int64_t *indptr = c.indptr;
        const int32_t *indices = c.indices;
        const uint8_t *etype = c.etype;
        const float *conf = c.conf;
        const uint32_t n = (uint32_t)c.n;
        const int64_t nnz = c.nnz;
        uint8_t *mark = vis.mark;
        const uint8_t stamp = vis.stamp;

        for (i = 0; i < bs.len; i++) {
            int64_t s = src[i];
            if ((uint64_t)s >= (uint64_t)n) { /* changed since it was checked */
                err = E_CHANGED;
                break;
            }
            if (mark[s] == stamp) continue;
            mark[s] = stamp;
            nodes[count] = s;
            depths[count] = 0;
            parents[count] = -1;
            count++;
        }
        nsrc = count;
        while (err == E_OK && head < count) {
            /* The queue lives in the caller's out_nodes; re-check what is read back
             * so that a concurrent write by another thread cannot make us read out
             * of bounds. */
            int64_t u = nodes[head];
            int32_t d = depths[head];
            int64_t a, b, e, w;
            if ((uint64_t)u >= (uint64_t)n) {
                err = E_CHANGED;
                break;
            }
            /* Rows of queued nodes are scattered: prefetch the offsets of the node
             * PF_PTR ahead and the edge data of the node PF_ROW ahead. */
            if (head + PF_PTR < count && (uint64_t)(w = nodes[head + PF_PTR]) < (uint64_t)n)
                PREFETCH(&indptr[w]);
            if (head + PF_ROW < count && (uint64_t)(w = nodes[head + PF_ROW]) < (uint64_t)n) {
                int64_t a2 = indptr[w];
                if (a2 >= 0 && a2 < nnz) {
                    PREFETCH(&indices[a2]);
                    PREFETCH(&etype[a2]);
                    PREFETCH(&conf[a2]);
                }
            }
            head++;
            if (max_depth >= 0 && (long long)d >= max_depth) break; /* depths are non-decreasing */
            a = indptr[u];
            b = indptr[u + 1];
            if (a < 0 || a > b || b > nnz) {
                err = E_INDPTR;
                where = u;
                break;
            }
            for (e = a; e < b; e++) {
                uint32_t v;
                v = (uint32_t)indices[e];
                if (v >= n) {
                    err = E_INDEX;
                    where = e;
                    goto done;
                }
                /* Cheapest test first: most edges of a large traversal lead to nodes
                 * already reached, and then the type and confidence are never read. */
                if (mark[v] == stamp) continue;
                if (!allowed[etype[e]]) continue;
                if (!((double)conf[e] >= min_conf)) continue;
                if (nmask != NULL && nmask[v] == 0) continue;
                if (limit >= 0 && count - nsrc >= limit) {
                    truncated = 1;
                    goto done;
                }
                mark[v] = stamp;
                nodes[count] = (int64_t)v;
                depths[count] = (int32_t)((uint32_t)d + 1u);
                parents[count] = u;
                count++;
            }
        }
    done:;
    }
    Py_END_ALLOW_THREADS

    visit_end(&vis);
    buf_release(&bs);
    buf_release(&bm);
    buf_release(&bn);
    buf_release(&bd);
    buf_release(&bpar);
    csr_close(&c);
    if (err != E_OK) {
        set_traversal_error(err, where);
        return NULL;
    }
    return Py_BuildValue("(LO)", (long long)count, truncated ? Py_True : Py_False);

fail:
    visit_end(&vis);
    buf_release(&bs);
    buf_release(&bm);
    buf_release(&bn);
    buf_release(&bd);
    buf_release(&bpar);
    csr_close(&c);
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* shortest_path                                                             */

static PyObject *core_shortest_path(PyObject *self, PyObject *args) {
    PyObject *ip, *ix, *et, *cf, *s_o, *t_o, *maxd_o, *mask_o, *minc_o, *nmask_o;
    csr_t c;
    buf_t bm = {0};
    long long source, target, max_depth;
    uint32_t tmask;
    double min_conf;
    const uint8_t *nmask = NULL;
    visit_t vis = {NULL, 0, 0, 0};
    int32_t *queue = NULL, *parent = NULL;
    uint8_t allowed[256];
    int err = E_OK, found = 0;
    int64_t where = 0;
    PyObject *result = NULL;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOOOOOOOOO:shortest_path", &ip, &ix, &et, &cf, &s_o, &t_o,
                          &maxd_o, &mask_o, &minc_o, &nmask_o))
        return NULL;
    if (arg_ll(s_o, "source", &source) != 0 || arg_ll(t_o, "target", &target) != 0 ||
        arg_ll(maxd_o, "max_depth", &max_depth) != 0 || arg_mask(mask_o, &tmask) != 0 ||
        arg_conf(minc_o, &min_conf) != 0)
        return NULL;
    if (csr_open(&c, ip, ix, et, cf) != 0) return NULL;
    if (source < 0 || source >= c.n || target < 0 || target >= c.n) {
        PyErr_Format(PyExc_ValueError, "source and target must be node ids in [0, %lld)",
                     (long long)c.n);
        goto out;
    }
    if (open_node_mask(nmask_o, &bm, c.n, &nmask) != 0) goto out;
    if (source == target) {
        result = PyBytes_FromStringAndSize((const char *)&source, sizeof(int64_t));
        goto out;
    }
    if (visit_begin(&vis, c.n) != 0) goto out;
    queue = (int32_t *)PyMem_RawMalloc((size_t)c.n * sizeof(int32_t));
    parent = (int32_t *)PyMem_RawMalloc((size_t)c.n * sizeof(int32_t));
    if (queue == NULL || parent == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    mask_table(tmask, allowed);

    Py_BEGIN_ALLOW_THREADS
    {
        int64_t head = 0, tail = 0, level_end, depth = 0;
        const uint32_t n = (uint32_t)c.n;
        uint8_t *mark = vis.mark;
        const uint8_t stamp = vis.stamp;
        mark[source] = stamp;
        parent[source] = -1;
        queue[tail++] = (int32_t)source;
        level_end = tail;
        while (head < tail && !found) {
            int32_t u;
            int64_t a, b, e;
            if (head == level_end) {
                depth++;
                level_end = tail;
            }
            if (max_depth >= 0 && depth >= max_depth) break;
            if (head + PF_PTR < tail) PREFETCH(&c.indptr[queue[head + PF_PTR]]);
            if (head + PF_ROW < tail) {
                int64_t a2 = c.indptr[queue[head + PF_ROW]];
                if (a2 >= 0 && a2 < c.nnz) {
                    PREFETCH(&c.indices[a2]);
                    PREFETCH(&c.etype[a2]);
                    PREFETCH(&c.conf[a2]);
                }
            }
            u = queue[head++];
            a = c.indptr[u]; /* read once: the checked values are the ones used */
            b = c.indptr[u + 1];
            if (a < 0 || a > b || b > c.nnz) {
                err = E_INDPTR;
                where = u;
                break;
            }
            for (e = a; e < b; e++) {
                uint32_t v;
                v = (uint32_t)c.indices[e];
                if (v >= n) {
                    err = E_INDEX;
                    where = e;
                    goto done;
                }
                if (mark[v] == stamp) continue;
                if (!allowed[c.etype[e]]) continue;
                if (!((double)c.conf[e] >= min_conf)) continue;
                if (nmask != NULL && nmask[v] == 0) continue;
                mark[v] = stamp;
                parent[v] = u;
                queue[tail++] = (int32_t)v;
                if ((long long)v == target) {
                    found = 1;
                    break;
                }
            }
        }
    done:;
    }
    Py_END_ALLOW_THREADS

    if (err != E_OK) {
        set_traversal_error(err, where);
        goto out;
    }
    if (!found) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto out;
    }
    {
        Py_ssize_t len = 1, k;
        int64_t v = target;
        int64_t *path;
        while (v != source) {
            v = parent[v];
            len++;
        }
        result = PyBytes_FromStringAndSize(NULL, len * (Py_ssize_t)sizeof(int64_t));
        if (result == NULL) goto out;
        path = (int64_t *)PyBytes_AS_STRING(result);
        v = target;
        for (k = len - 1; k >= 0; k--) {
            path[k] = v;
            if (k > 0) v = parent[v];
        }
    }
out:
    visit_end(&vis);
    PyMem_RawFree(queue);
    PyMem_RawFree(parent);
    buf_release(&bm);
    csr_close(&c);
    return result;
}

/* ------------------------------------------------------------------------- */
/* strongly connected components (iterative Tarjan)                          */

static PyObject *core_scc(PyObject *self, PyObject *args) {
    PyObject *ip, *ix, *et, *cf, *mask_o, *minc_o, *ol_o, *os_o;
    csr_t c;
    buf_t bl = {0}, bsl = {0};
    uint32_t tmask;
    double min_conf;
    int32_t *idx = NULL, *low = NULL, *stk = NULL, *cs_node = NULL;
    int64_t *cs_edge = NULL, *remap = NULL;
    uint8_t *onstk = NULL;
    uint8_t allowed[256];
    int err = E_OK;
    int64_t where = 0, ncomp = 0;
    PyObject *result = NULL;
    size_t n;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOOOOOOO:strongly_connected_components", &ip, &ix, &et, &cf,
                          &mask_o, &minc_o, &ol_o, &os_o))
        return NULL;
    if (arg_mask(mask_o, &tmask) != 0 || arg_conf(minc_o, &min_conf) != 0) return NULL;
    if (csr_open(&c, ip, ix, et, cf) != 0) return NULL;
    if (buf_get(ol_o, &bl, "out_labels", "int64", KIND_INT, 8, 1) != 0 ||
        buf_get(os_o, &bsl, "out_self_loop", "uint8", KIND_MASK, 1, 1) != 0)
        goto out;
    {
        const buf_t *outs[] = {&bl, &bsl};
        const buf_t *ins[] = {&c.bp, &c.bi, &c.be, &c.bc};
        if (check_outputs(outs, 2, ins, 4) != 0) goto out;
    }
    if (bl.len != c.n || bsl.len != c.n) {
        PyErr_Format(PyExc_ValueError, "output arrays must have n_nodes = %lld entries",
                     (long long)c.n);
        goto out;
    }
    n = (size_t)(c.n > 0 ? c.n : 1);
    idx = (int32_t *)PyMem_RawMalloc(n * sizeof(int32_t));
    low = (int32_t *)PyMem_RawMalloc(n * sizeof(int32_t));
    stk = (int32_t *)PyMem_RawMalloc(n * sizeof(int32_t));
    cs_node = (int32_t *)PyMem_RawMalloc(n * sizeof(int32_t));
    cs_edge = (int64_t *)PyMem_RawMalloc(n * sizeof(int64_t));
    remap = (int64_t *)PyMem_RawMalloc(n * sizeof(int64_t));
    onstk = (uint8_t *)PyMem_RawCalloc(n, 1);
    if (!idx || !low || !stk || !cs_node || !cs_edge || !remap || !onstk) {
        PyErr_NoMemory();
        goto out;
    }
    mask_table(tmask, allowed);

    Py_BEGIN_ALLOW_THREADS
    {
        int64_t *labels = (int64_t *)bl.view.buf;
        uint8_t *selfloop = (uint8_t *)bsl.view.buf;
        const uint32_t un = (uint32_t)c.n;
        int64_t r, v64;
        int32_t counter = 0;
        int64_t sp = 0, csp = 0;
        memset(selfloop, 0, (size_t)c.n);
        for (r = 0; r < c.n; r++) idx[r] = -1;
        for (r = 0; r < c.n && err == E_OK; r++) {
            int64_t start = c.indptr[r];
            if (idx[r] != -1) continue;
            if (start < 0 || start > c.nnz) {
                err = E_INDPTR;
                where = r;
                break;
            }
            idx[r] = low[r] = counter++;
            stk[sp++] = (int32_t)r;
            onstk[r] = 1;
            cs_node[csp] = (int32_t)r;
            cs_edge[csp] = start;
            csp++;
            while (csp > 0) {
                int32_t u = cs_node[csp - 1];
                int64_t e = cs_edge[csp - 1]; /* in [0, nnz]: checked when stored */
                int64_t end = c.indptr[u + 1];
                int descended = 0;
                if (end > c.nnz || end < c.indptr[u]) {
                    err = E_INDPTR;
                    where = u;
                    break;
                }
                for (; e < end; e++) {
                    uint32_t v;
                    if (!allowed[c.etype[e]]) continue;
                    if (!((double)c.conf[e] >= min_conf)) continue;
                    v = (uint32_t)c.indices[e];
                    if (v >= un) {
                        err = E_INDEX;
                        where = e;
                        break;
                    }
                    if ((int32_t)v == u) selfloop[u] = 1;
                    if (idx[v] == -1) {
                        int64_t vstart = c.indptr[v];
                        if (vstart < 0 || vstart > c.nnz) {
                            err = E_INDPTR;
                            where = v;
                            break;
                        }
                        cs_edge[csp - 1] = e + 1;
                        idx[v] = low[v] = counter++;
                        stk[sp++] = (int32_t)v;
                        onstk[v] = 1;
                        cs_node[csp] = (int32_t)v;
                        cs_edge[csp] = vstart;
                        csp++;
                        descended = 1;
                        break;
                    } else if (onstk[v] && idx[v] < low[u]) {
                        low[u] = idx[v];
                    }
                }
                if (err != E_OK) break;
                if (descended) continue;
                csp--;
                if (low[u] == idx[u]) {
                    int32_t w;
                    do {
                        w = stk[--sp];
                        onstk[w] = 0;
                        labels[w] = ncomp;
                    } while (w != u);
                    ncomp++;
                }
                if (csp > 0) {
                    int32_t p = cs_node[csp - 1];
                    if (low[u] < low[p]) low[p] = low[u];
                }
            }
        }
        if (err == E_OK) {
            /* Relabel: components numbered by their smallest node id, ascending. */
            int64_t next = 0;
            for (v64 = 0; v64 < ncomp; v64++) remap[v64] = -1;
            for (v64 = 0; v64 < c.n; v64++) {
                int64_t comp = labels[v64];
                if (comp < 0 || comp >= ncomp) { /* out_labels written by another thread */
                    err = E_CHANGED;
                    break;
                }
                if (remap[comp] < 0) remap[comp] = next++;
                labels[v64] = remap[comp];
            }
        }
    }
    Py_END_ALLOW_THREADS

    if (err != E_OK) {
        set_traversal_error(err, where);
        goto out;
    }
    result = PyLong_FromLongLong((long long)ncomp);
out:
    PyMem_RawFree(idx);
    PyMem_RawFree(low);
    PyMem_RawFree(stk);
    PyMem_RawFree(cs_node);
    PyMem_RawFree(cs_edge);
    PyMem_RawFree(remap);
    PyMem_RawFree(onstk);
    buf_release(&bl);
    buf_release(&bsl);
    csr_close(&c);
    return result;
}

/* ------------------------------------------------------------------------- */

static PyObject *core_version(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyUnicode_FromString("0.1.0");
}

static PyMethodDef core_methods[] = {
    {"version", core_version, METH_NOARGS, "Version of the native core."},
    {"validate_csr", core_validate_csr, METH_VARARGS,
     "validate_csr(indptr, indices, edge_type, confidence) -> None; full O(n + nnz) check."},
    {"bfs", core_bfs, METH_VARARGS,
     "bfs(indptr, indices, edge_type, confidence, sources, max_depth, type_mask, min_confidence,"
     " node_mask, limit, out_nodes, out_depths, out_parents) -> (count, truncated)"},
    {"shortest_path", core_shortest_path, METH_VARARGS,
     "shortest_path(indptr, indices, edge_type, confidence, source, target, max_depth, type_mask,"
     " min_confidence, node_mask) -> bytes of int64 node ids, or None"},
    {"strongly_connected_components", core_scc, METH_VARARGS,
     "strongly_connected_components(indptr, indices, edge_type, confidence, type_mask,"
     " min_confidence, out_labels, out_self_loop) -> number of components"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "codeimpact native traversal core", -1, core_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&core_module); }
