/* Shortest path and strongly connected components of the native core (see native/_core.c). */
#include "core.h"

/* ------------------------------------------------------------------------- */
/* shortest_path                                                             */

PyObject *core_shortest_path(PyObject *self, PyObject *args) {
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

PyObject *core_scc(PyObject *self, PyObject *args) {
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
