/*
 * The index state's edge codes and the snapshot's per-node arrays, for an incremental run
 * without numpy (importing it cost every edit ~45 ms of CPU): buffers in, bytes out.
 *
 * An edge code is (src << 27) | (dst << 3) | type in an int64 (indexer/state.py); the
 * state keeps them sorted and unique, each with a float32 confidence.
 *   csr_from_codes  the forward and reverse CSR of sorted unique codes (graph/csr.py's
 *                   build_csr(..., sorted_unique=True), the same bytes)
 *   patch_codes     indexer/incremental.py's patch_codes: codes removed, ids renumbered,
 *                   codes added, then a stable sort
 *   rank_order      the inverse of a permutation (numpy's stable argsort of it)
 *   patched_ranks   indexer/incremental.py's _patched_ranks after its bisections
 */
#include "core.h"

#include <stdlib.h>

#define CODE_TYPE_BITS 3
#define CODE_ID_BITS 24

static PyObject *new_bytes(Py_ssize_t size, char **out) {
    PyObject *b = PyBytes_FromStringAndSize(NULL, size);
    if (b != NULL) *out = PyBytes_AS_STRING(b);
    return b;
}

/* csr_from_codes(codes, confs, n_nodes) -> (fwd indptr, indices, edge_type, confidence,
 * rev indptr, indices, edge_type, confidence) as bytes (int64, int32, uint8, float32); None
 * when the codes are not strictly increasing or name an id outside [0, n_nodes) (the caller
 * takes numpy's way, which sorts them or says what is wrong). */
PyObject *core_csr_from_codes(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *confs_obj, *n_obj, *out = NULL;
    PyObject *parts[8] = {NULL};
    buf_t bk, bf;
    long long n_ll;
    int64_t n, m, i;
    const int64_t *k;
    const float *f;
    int64_t *fp, *rp, *pos = NULL;
    int32_t *fi, *ri;
    uint8_t *fe, *re;
    float *fc, *rc;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO:csr_from_codes", &codes_obj, &confs_obj, &n_obj)) return NULL;
    if (arg_ll(n_obj, "n_nodes", &n_ll) != 0) return NULL;
    if (n_ll < 0 || n_ll > (long long)INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "n_nodes must be in [0, 2**31)");
        return NULL;
    }
    n = (int64_t)n_ll;
    if (buf_get(codes_obj, &bk, "codes", "int64", KIND_INT, 8, 0) != 0) return NULL;
    if (buf_get(confs_obj, &bf, "confs", "float32", KIND_FLOAT, 4, 0) != 0) {
        buf_release(&bk);
        return NULL;
    }
    m = bk.len;
    k = (const int64_t *)bk.view.buf;
    f = (const float *)bf.view.buf;
    if (bf.len != m) {
        PyErr_SetString(PyExc_ValueError, "codes and confs must have the same length");
        goto done;
    }
    for (i = 0; i < m; i++) {
        int64_t c = k[i], src = c >> (CODE_ID_BITS + CODE_TYPE_BITS);
        int64_t dst = (c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1);
        if (c < 0 || src >= n || dst >= n || (i && c <= k[i - 1])) {
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
    }
    {
        /* forward then reverse: indptr, indices, edge_type, confidence */
        const Py_ssize_t sizes[8] = {(n + 1) * 8, m * 4, m, m * 4, (n + 1) * 8, m * 4, m, m * 4};
        char *at[8];
        for (i = 0; i < 8; i++)
            if ((parts[i] = new_bytes(sizes[i], &at[i])) == NULL) goto done;
        fp = (int64_t *)at[0];
        fi = (int32_t *)at[1];
        fe = (uint8_t *)at[2];
        fc = (float *)at[3];
        rp = (int64_t *)at[4];
        ri = (int32_t *)at[5];
        re = (uint8_t *)at[6];
        rc = (float *)at[7];
    }
    pos = (int64_t *)PyMem_RawMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (pos == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(fp, 0, (size_t)(n + 1) * 8);
    memset(rp, 0, (size_t)(n + 1) * 8);
    for (i = 0; i < m; i++) {
        int64_t c = k[i];
        fp[(c >> (CODE_ID_BITS + CODE_TYPE_BITS)) + 1]++;
        rp[((c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1)) + 1]++;
        fi[i] = (int32_t)((c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1));
        fe[i] = (uint8_t)(c & ((1 << CODE_TYPE_BITS) - 1));
    }
    memcpy(fc, f, (size_t)m * 4);
    for (i = 0; i < n; i++) {
        fp[i + 1] += fp[i];
        rp[i + 1] += rp[i];
        pos[i] = rp[i];
    }
    /* a counting sort by target: the codes come by (source, target, type), so each
     * target's row lists its sources ascending, types ascending within a source, as a
     * stable sort by (target, source) does */
    for (i = 0; i < m; i++) {
        int64_t c = k[i], at = pos[(c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1)]++;
        ri[at] = (int32_t)(c >> (CODE_ID_BITS + CODE_TYPE_BITS));
        re[at] = (uint8_t)(c & ((1 << CODE_TYPE_BITS) - 1));
        rc[at] = f[i];
    }
    out = PyTuple_New(8);
    if (out != NULL)
        for (i = 0; i < 8; i++) {
            PyTuple_SET_ITEM(out, i, parts[i]);
            parts[i] = NULL;
        }
done:
    for (i = 0; i < 8; i++) Py_XDECREF(parts[i]);
    PyMem_RawFree(pos);
    buf_release(&bk);
    buf_release(&bf);
    return out;
}

typedef struct {
    int64_t code;
    float conf;
} coded_t;

/* Stable sort of a by code: runs already in order are found and merged pairwise (the
 * codes kept are mostly in order, the codes added few). */
static int natural_sort(coded_t *a, Py_ssize_t n) {
    Py_ssize_t *starts, nruns = 0, i;
    coded_t *tmp, *src = a, *dst;
    if (n < 2) return 0;
    starts = (Py_ssize_t *)PyMem_RawMalloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (starts == NULL) return -1;
    for (i = 0; i < n; i++)
        if (i == 0 || a[i].code < a[i - 1].code) starts[nruns++] = i;
    if (nruns == 1) {
        PyMem_RawFree(starts);
        return 0;
    }
    tmp = (coded_t *)PyMem_RawMalloc((size_t)n * sizeof(coded_t));
    if (tmp == NULL) {
        PyMem_RawFree(starts);
        return -1;
    }
    dst = tmp;
    starts[nruns] = n;
    while (nruns > 1) {
        Py_ssize_t r, kept = 0;
        for (r = 0; r < nruns; r += 2) {
            Py_ssize_t lo = starts[r], mid = starts[r + 1], hi, x, y, o = lo;
            hi = r + 2 <= nruns ? starts[r + 2] : n;
            if (r + 1 >= nruns) mid = hi = n;
            x = lo;
            y = mid;
            while (x < mid && y < hi) dst[o++] = src[y].code < src[x].code ? src[y++] : src[x++];
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
            starts[kept++] = lo;
        }
        nruns = kept;
        starts[nruns] = n;
        {
            coded_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof(coded_t));
    PyMem_RawFree(tmp);
    PyMem_RawFree(starts);
    return 0;
}

static int cmp_ll(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int in_sorted(const int64_t *r, Py_ssize_t nr, int64_t c) {
    Py_ssize_t lo = 0, hi = nr;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (r[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nr && r[lo] == c;
}

/* The codes added as (code, confidence) pairs in `ad`, stably sorted by code, into *out
 * (na + 1 entries, the caller frees); -1 with an exception set on a bad pair. */
static int added_sorted(PyObject *ad, Py_ssize_t na, coded_t **out) {
    coded_t *a = (coded_t *)PyMem_RawMalloc((size_t)(na + 1) * sizeof(coded_t));
    Py_ssize_t i;
    *out = a;
    if (a == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < na; i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(ad, i);
        long long c;
        double conf;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "added must hold (code, confidence) pairs");
            return -1;
        }
        c = PyLong_AsLongLong(PyTuple_GET_ITEM(pair, 0));
        if (c == -1 && PyErr_Occurred()) return -1;
        conf = PyFloat_AsDouble(PyTuple_GET_ITEM(pair, 1));
        if (conf == -1.0 && PyErr_Occurred()) return -1;
        a[i].code = (int64_t)c;
        a[i].conf = (float)conf;
    }
    if (natural_sort(a, na) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* patch_codes without renumbering, for codes in order (as the state keeps them): one pass
 * merges the codes kept with the codes added (sorted: `add`), written straight into the
 * two result buffers, kept before added on a tie, as the stable sort of the general way
 * orders them. An edit's delta is a few codes of Django's ~190K: the general way's copy,
 * run merges and copy back (two 3 MB buffers taken and faulted in by every edit, then
 * unmapped) cost ~4 ms. Returns NULL without an exception set when `k` is not in order
 * (the caller takes the general way). */
static PyObject *patch_in_order(const int64_t *k, const float *f, Py_ssize_t n0,
                                const int64_t *r, Py_ssize_t nr, const coded_t *add,
                                Py_ssize_t na) {
    Py_ssize_t gone = 0, total, i, j = 0, ri = 0, o = 0;
    PyObject *rb = NULL, *fb = NULL, *out = NULL;
    int64_t *oc, prev = INT64_MIN;
    float *of;
    char *p;
    /* the result's size: each removed code (sorted, maybe repeated) found in k */
    for (i = 0; i < nr; i++) {
        Py_ssize_t lo = 0, hi = n0;
        if (i && r[i] == r[i - 1]) continue;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (k[mid] < r[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        while (lo < n0 && k[lo] == r[i]) {
            gone++;
            lo++;
        }
    }
    total = n0 - gone + na;
    if ((rb = new_bytes(total * 8, &p)) == NULL) return NULL;
    oc = (int64_t *)p;
    if ((fb = new_bytes(total * 4, &p)) == NULL) goto fail;
    of = (float *)p;
    for (i = 0; i < n0; i++) {
        int64_t c = k[i];
        if (c < prev) goto fall_back;
        prev = c;
        while (ri < nr && r[ri] < c) ri++;
        if (ri < nr && r[ri] == c) continue;
        while (j < na && add[j].code < c) {
            if (o == total) goto fall_back;
            oc[o] = add[j].code;
            of[o++] = add[j++].conf;
        }
        if (o == total) goto fall_back;
        oc[o] = c;
        of[o++] = f[i];
    }
    while (j < na) {
        if (o == total) goto fall_back;
        oc[o] = add[j].code;
        of[o++] = add[j++].conf;
    }
    if (o != total) goto fall_back;
    out = PyTuple_Pack(2, rb, fb);
fail:
    Py_XDECREF(rb);
    Py_XDECREF(fb);
    return out;
fall_back:
    Py_XDECREF(rb);
    Py_XDECREF(fb);
    return NULL;
}

/* patch_codes(codes, confs, removed, added, moves) -> (codes, confs) as int64/float32 bytes:
 * every code in `removed` (a sequence of ints) goes, the ids of the others are renumbered by
 * `moves` (a dict old id -> new id), `added` ((code, confidence) pairs) come in, then all of
 * them are sorted by code, stably (ties keep that order). */
PyObject *core_patch_codes(PyObject *self, PyObject *args) {
    PyObject *codes_obj, *confs_obj, *removed, *added, *moves, *out = NULL, *seq = NULL;
    PyObject *rm = NULL, *ad = NULL, *rb = NULL, *fb = NULL;
    buf_t bk, bf;
    int64_t *r = NULL, *remap = NULL;
    coded_t *all = NULL, *add = NULL;
    Py_ssize_t nr, na, n0, kept = 0, total, i;
    const int64_t *k;
    const float *f;
    char *p;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOO:patch_codes", &codes_obj, &confs_obj, &removed, &added,
                          &moves))
        return NULL;
    if (!PyDict_Check(moves)) {
        PyErr_SetString(PyExc_TypeError, "moves must be a dict");
        return NULL;
    }
    if (buf_get(codes_obj, &bk, "codes", "int64", KIND_INT, 8, 0) != 0) return NULL;
    if (buf_get(confs_obj, &bf, "confs", "float32", KIND_FLOAT, 4, 0) != 0) {
        buf_release(&bk);
        return NULL;
    }
    k = (const int64_t *)bk.view.buf;
    f = (const float *)bf.view.buf;
    n0 = bk.len;
    if (bf.len != n0) {
        PyErr_SetString(PyExc_ValueError, "codes and confs must have the same length");
        goto done;
    }
    if ((rm = PySequence_Fast(removed, "removed must be a sequence")) == NULL) goto done;
    if ((ad = PySequence_Fast(added, "added must be a sequence")) == NULL) goto done;
    nr = PySequence_Fast_GET_SIZE(rm);
    na = PySequence_Fast_GET_SIZE(ad);
    r = (int64_t *)PyMem_RawMalloc((size_t)(nr + 1) * sizeof(int64_t));
    if (r == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < nr; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(rm, i));
        if (v == -1 && PyErr_Occurred()) goto done;
        r[i] = (int64_t)v;
    }
    qsort(r, (size_t)nr, sizeof(int64_t), cmp_ll);
    if (added_sorted(ad, na, &add) != 0) goto done;
    if (!PyDict_GET_SIZE(moves)) {
        out = patch_in_order(k, f, n0, r, nr, add, na);
        if (out != NULL || PyErr_Occurred()) goto done;
    }
    all = (coded_t *)PyMem_RawMalloc((size_t)(n0 + na + 1) * sizeof(coded_t));
    if (all == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n0; i++)
        if (!nr || !in_sorted(r, nr, k[i])) {
            all[kept].code = k[i];
            all[kept].conf = f[i];
            kept++;
        }
    if (PyDict_GET_SIZE(moves) && kept) {
        int64_t top = -1, key, val;
        Py_ssize_t at = 0;
        PyObject *ko, *vo;
        for (i = 0; i < kept; i++) {
            int64_t c = all[i].code, src = c >> (CODE_ID_BITS + CODE_TYPE_BITS);
            int64_t dst = (c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1);
            if (c < 0) {
                PyErr_SetString(PyExc_ValueError, "a negative edge code");
                goto done;
            }
            if (src > top) top = src;
            if (dst > top) top = dst;
        }
        while (PyDict_Next(moves, &at, &ko, &vo)) {
            key = (int64_t)PyLong_AsLongLong(ko);
            if (key == -1 && PyErr_Occurred()) goto done;
            if (key < 0) {
                PyErr_SetString(PyExc_IndexError, "a negative id in moves");
                goto done;
            }
            if (key > top) top = key;
        }
        remap = (int64_t *)PyMem_RawMalloc((size_t)(top + 1) * sizeof(int64_t));
        if (remap == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        for (i = 0; i <= top; i++) remap[i] = i;
        at = 0;
        while (PyDict_Next(moves, &at, &ko, &vo)) {
            key = (int64_t)PyLong_AsLongLong(ko);
            val = (int64_t)PyLong_AsLongLong(vo);
            if (val == -1 && PyErr_Occurred()) goto done;
            remap[key] = val;
        }
        for (i = 0; i < kept; i++) {
            int64_t c = all[i].code;
            int64_t src = c >> (CODE_ID_BITS + CODE_TYPE_BITS);
            int64_t dst = (c >> CODE_TYPE_BITS) & ((1 << CODE_ID_BITS) - 1);
            all[i].code = (remap[src] << (CODE_ID_BITS + CODE_TYPE_BITS)) |
                          (remap[dst] << CODE_TYPE_BITS) | (c & ((1 << CODE_TYPE_BITS) - 1));
        }
    }
    /* the codes added come sorted: the stable sort below orders ties as before */
    memcpy(all + kept, add, (size_t)na * sizeof(coded_t));
    total = kept + na;
    if (natural_sort(all, total) != 0) {
        PyErr_NoMemory();
        goto done;
    }
    if ((rb = new_bytes(total * 8, &p)) == NULL) goto done;
    for (i = 0; i < total; i++) ((int64_t *)p)[i] = all[i].code;
    if ((fb = new_bytes(total * 4, &p)) == NULL) goto done;
    for (i = 0; i < total; i++) ((float *)p)[i] = all[i].conf;
    out = PyTuple_Pack(2, rb, fb);
done:
    Py_XDECREF(seq);
    Py_XDECREF(rm);
    Py_XDECREF(ad);
    Py_XDECREF(rb);
    Py_XDECREF(fb);
    PyMem_RawFree(r);
    PyMem_RawFree(remap);
    PyMem_RawFree(all);
    PyMem_RawFree(add);
    buf_release(&bk);
    buf_release(&bf);
    return out;
}

/* rank_order(rank) -> the node at each rank as int32 bytes (numpy's stable argsort of
 * `rank`), or None when `rank` (int32) is not a permutation of 0..n-1. */
PyObject *core_rank_order(PyObject *self, PyObject *arg) {
    buf_t b;
    PyObject *out = NULL;
    int32_t *o;
    const int32_t *rank;
    char *p;
    Py_ssize_t n, i;
    (void)self;
    if (buf_get(arg, &b, "rank", "int32", KIND_INT, 4, 0) != 0) return NULL;
    rank = (const int32_t *)b.view.buf;
    n = b.len;
    if ((out = new_bytes(n * 4, &p)) == NULL) goto done;
    o = (int32_t *)p;
    for (i = 0; i < n; i++) o[i] = -1;
    for (i = 0; i < n; i++) {
        int32_t r = rank[i];
        if (r < 0 || r >= n || o[r] != -1) {
            Py_DECREF(out);
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
        o[r] = (int32_t)i;
    }
done:
    buf_release(&b);
    return out;
}

static int64_t count_below(const int64_t *a, int64_t n, int64_t v, int right) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (a[mid] < v || (right && a[mid] == v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t *int_array(PyObject *seq_obj, Py_ssize_t *n, const char *what) {
    PyObject *seq = PySequence_Fast(seq_obj, what);
    int64_t *out;
    Py_ssize_t i;
    if (seq == NULL) return NULL;
    *n = PySequence_Fast_GET_SIZE(seq);
    out = (int64_t *)PyMem_RawMalloc((size_t)(*n + 1) * sizeof(int64_t));
    if (out == NULL) {
        PyErr_NoMemory();
        Py_DECREF(seq);
        return NULL;
    }
    for (i = 0; i < *n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_RawFree(out);
            Py_DECREF(seq);
            return NULL;
        }
        out[i] = (int64_t)v;
    }
    Py_DECREF(seq);
    return out;
}

/* patched_ranks(old_rank, gone_ids, moves, places, newcomer_ids, n_new) -> int32 bytes:
 * each node's rank in uid order after a delta. The survivors keep their order: a survivor's
 * rank is its old rank, less the gone ranked before it, plus the newcomers placed at or
 * before that (`places`: ascending, the survivors before each newcomer, in the newcomers'
 * uid order); survivor i's new id is moves.get(i, i); newcomer j (id newcomer_ids[j]) takes
 * places[j] + j. */
PyObject *core_patched_ranks(PyObject *self, PyObject *args) {
    PyObject *rank_obj, *gone_obj, *moves, *places_obj, *new_obj, *out = NULL;
    buf_t b;
    long long n_new_ll;
    int64_t *gone = NULL, *gone_ranks = NULL, *places = NULL, *newids = NULL, *remap = NULL;
    uint8_t *is_gone = NULL;
    Py_ssize_t ng = 0, np_ = 0, nn = 0, n_old, i, at = 0;
    const int32_t *rank;
    int32_t *o;
    char *p;
    PyObject *ko, *vo;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOL:patched_ranks", &rank_obj, &gone_obj, &moves,
                          &places_obj, &new_obj, &n_new_ll))
        return NULL;
    if (!PyDict_Check(moves)) {
        PyErr_SetString(PyExc_TypeError, "moves must be a dict");
        return NULL;
    }
    if (buf_get(rank_obj, &b, "old_rank", "int32", KIND_INT, 4, 0) != 0) return NULL;
    rank = (const int32_t *)b.view.buf;
    n_old = b.len;
    if ((gone = int_array(gone_obj, &ng, "gone_ids must be a sequence")) == NULL) goto done;
    if ((places = int_array(places_obj, &np_, "places must be a sequence")) == NULL) goto done;
    if ((newids = int_array(new_obj, &nn, "newcomer_ids must be a sequence")) == NULL) goto done;
    if (nn != np_ || n_new_ll < 0) {
        PyErr_SetString(PyExc_ValueError, "one place per newcomer");
        goto done;
    }
    gone_ranks = (int64_t *)PyMem_RawMalloc((size_t)(ng + 1) * sizeof(int64_t));
    is_gone = (uint8_t *)PyMem_RawCalloc((size_t)(n_old + 1), 1);
    remap = (int64_t *)PyMem_RawMalloc((size_t)(n_old + 1) * sizeof(int64_t));
    if (gone_ranks == NULL || is_gone == NULL || remap == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < ng; i++) {
        if (gone[i] < 0 || gone[i] >= n_old) {
            PyErr_SetString(PyExc_IndexError, "a gone id outside the old ranks");
            goto done;
        }
        is_gone[gone[i]] = 1;
        gone_ranks[i] = rank[gone[i]];
    }
    qsort(gone_ranks, (size_t)ng, sizeof(int64_t), cmp_ll);
    for (i = 0; i < n_old; i++) remap[i] = i;
    while (PyDict_Next(moves, &at, &ko, &vo)) {
        long long key = PyLong_AsLongLong(ko), val = PyLong_AsLongLong(vo);
        if (PyErr_Occurred()) goto done;
        if (key < 0 || key >= n_old) {
            PyErr_SetString(PyExc_IndexError, "a moved id outside the old ranks");
            goto done;
        }
        remap[key] = val;
    }
    if ((out = new_bytes((Py_ssize_t)n_new_ll * 4, &p)) == NULL) goto done;
    o = (int32_t *)p;
    memset(o, 0, (size_t)n_new_ll * 4);
    for (i = 0; i < n_old; i++) {
        int64_t c, to = remap[i];
        if (is_gone[i]) continue;
        if (to < 0 || to >= n_new_ll) {
            PyErr_SetString(PyExc_IndexError, "a survivor's id outside the new ranks");
            goto fail;
        }
        c = rank[i] - count_below(gone_ranks, ng, rank[i], 0);
        o[to] = (int32_t)(c + count_below(places, np_, c, 1));
    }
    for (i = 0; i < nn; i++) {
        if (newids[i] < 0 || newids[i] >= n_new_ll) {
            PyErr_SetString(PyExc_IndexError, "a newcomer's id outside the new ranks");
            goto fail;
        }
        o[newids[i]] = (int32_t)(places[i] + i);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyMem_RawFree(gone);
    PyMem_RawFree(gone_ranks);
    PyMem_RawFree(places);
    PyMem_RawFree(newids);
    PyMem_RawFree(remap);
    PyMem_RawFree(is_gone);
    buf_release(&b);
    return out;
}
