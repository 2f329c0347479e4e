/* Breadth-first traversal of the native core (see native/_core.c). */
#include "core.h"

PyObject *core_bfs(PyObject *self, PyObject *args) {
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
    PyObject *result = NULL;
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

    if (err != E_OK) {
        set_traversal_error(err, where);
        goto fail;
    }
    result = Py_BuildValue("(LO)", (long long)count, truncated ? Py_True : Py_False);

fail: /* every path: what was taken is given back */
    visit_end(&vis);
    buf_release(&bs);
    buf_release(&bm);
    buf_release(&bn);
    buf_release(&bd);
    buf_release(&bpar);
    csr_close(&c);
    return result;
}
