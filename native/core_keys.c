/*
 * invert_keys: every file's lookup keys (indexer/name_index.py keys_blob) inverted into the
 * packed names index NameIndex saves: the names sorted (their UTF-8 bytes) in one blob with
 * their end offsets, and per name its postings (int32: 2 * the file's place + 1 when the file
 * uses the name, + 0 when only its binders read it, in file order) with their end offsets in
 * bytes. The Python build made a list of ints per name: on the kernel's keys (1.7M names,
 * 5.0M postings) 7.9 s of CPU and ~414 MB at its peak; here the names stay in the blobs (a
 * table of their places), the postings are gathered as (name, code) pairs and counted into
 * place.
 */
#include "core.h"

#include <stdlib.h>

typedef struct {
    const char *p;
    uint32_t n;      /* its bytes */
    uint32_t count;  /* its postings */
    uint64_t hash;
} name_t;

typedef struct {
    name_t *names;
    Py_ssize_t len, cap;
    int32_t *slots; /* open addressing: name index + 1 (0: free) */
    size_t mask;
} names_t;

static int grow_slots(names_t *t) {
    size_t n = t->mask ? 2 * (t->mask + 1) : 1 << 12;
    int32_t *slots = PyMem_Calloc(n, sizeof *slots);
    if (slots == NULL) return -1;
    for (Py_ssize_t i = 0; i < t->len; i++) {
        size_t s = (size_t)t->names[i].hash & (n - 1);
        while (slots[s]) s = (s + 1) & (n - 1);
        slots[s] = (int32_t)(i + 1);
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return 0;
}

/* The number of the name p[:n], added at its first sight; -1 without memory. */
static Py_ssize_t name_number(names_t *t, const char *p, Py_ssize_t n) {
    if (2 * (size_t)(t->len + 1) > t->mask + 1 && grow_slots(t) < 0) return -1;
    uint64_t h = hash_bytes(p, n);
    size_t s = (size_t)h & t->mask;
    for (int32_t at; (at = t->slots[s]) != 0; s = (s + 1) & t->mask) {
        name_t *e = &t->names[at - 1];
        if (e->hash == h && e->n == (uint32_t)n && memcmp(e->p, p, (size_t)n) == 0) return at - 1;
    }
    if (t->len == t->cap) {
        Py_ssize_t cap = t->cap ? 2 * t->cap : 1 << 12;
        name_t *names = PyMem_Realloc(t->names, (size_t)cap * sizeof *names);
        if (names == NULL) return -1;
        t->names = names;
        t->cap = cap;
    }
    t->names[t->len] = (name_t){p, (uint32_t)n, 0, h};
    t->slots[s] = (int32_t)(t->len + 1);
    return t->len++;
}

typedef struct {
    int32_t *v;
    Py_ssize_t len, cap;
} ints_t;

static int push2(ints_t *a, int32_t x, int32_t y) {
    if (a->len + 2 > a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 1 << 14;
        int32_t *v = PyMem_Realloc(a->v, (size_t)cap * sizeof *v);
        if (v == NULL) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    a->v[a->len++] = y;
    return 0;
}

/* The names of one part (one a line; an empty part: none) as (name, code) pairs. */
static int add_part(names_t *t, ints_t *pairs, const char *p, const char *end, int32_t code) {
    if (p == end) return 0;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        Py_ssize_t no = name_number(t, p, stop - p);
        if (no < 0 || push2(pairs, (int32_t)no, code) < 0) return -1;
        t->names[no].count++;
        if (nl == NULL) return 0;
        p = nl + 1;
    }
}

static const names_t *sort_table; /* (qsort has no context argument in C99) */

static int by_bytes(const void *a, const void *b) {
    const name_t *x = &sort_table->names[*(const int32_t *)a];
    const name_t *y = &sort_table->names[*(const int32_t *)b];
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* invert_keys(blobs) -> (names, name_ends, postings, posting_ends) (bytes: UTF-8, uint32,
 * int32, uint32), or None when a blob is not of KEYS_FORMAT 1 (marshal's: the caller reads
 * those). `blobs`: the files' keys blobs in the order of their places. */
PyObject *core_invert_keys(PyObject *self, PyObject *blobs) {
    (void)self;
    if (!PyList_Check(blobs)) {
        PyErr_SetString(PyExc_TypeError, "invert_keys: a list of bytes");
        return NULL;
    }
    Py_ssize_t files = PyList_GET_SIZE(blobs);
    if (files > INT32_MAX / 2) {
        PyErr_SetString(PyExc_OverflowError, "invert_keys: too many files");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < files; i++) {
        PyObject *b = PyList_GET_ITEM(blobs, i);
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "invert_keys: a list of bytes");
            return NULL;
        }
        if (PyBytes_GET_SIZE(b) < 1 || PyBytes_AS_STRING(b)[0] != 1) Py_RETURN_NONE;
    }
    names_t t = {NULL, 0, 0, NULL, 0};
    ints_t pairs = {NULL, 0, 0};
    int32_t *order = NULL, *at = NULL;
    PyObject *out = NULL, *names = NULL, *name_ends = NULL, *postings = NULL, *posting_ends = NULL;
    Py_ssize_t n, npairs, bytes = 0;
    for (Py_ssize_t i = 0; i < files; i++) {
        PyObject *b = PyList_GET_ITEM(blobs, i);
        const char *p = PyBytes_AS_STRING(b) + 1, *end = p + PyBytes_GET_SIZE(b) - 1;
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        const char *mid = nul ? nul : end;
        if (add_part(&t, &pairs, p, mid, (int32_t)(2 * i + 1)) < 0 ||
            (nul && add_part(&t, &pairs, nul + 1, end, (int32_t)(2 * i)) < 0))
            goto nomem;
    }
    n = t.len;
    npairs = pairs.len / 2;
    order = PyMem_Malloc((size_t)(n + 1) * sizeof *order);
    at = PyMem_Malloc((size_t)(n + 1) * sizeof *at);
    if (order == NULL || at == NULL) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) order[i] = (int32_t)i;
    sort_table = &t;
    qsort(order, (size_t)n, sizeof *order, by_bytes);
    for (Py_ssize_t i = 0; i < n; i++) bytes += t.names[i].n;
    if (bytes > UINT32_MAX || 4 * npairs > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "invert_keys: an index over 4 GB");
        goto done;
    }
    names = PyBytes_FromStringAndSize(NULL, bytes);
    name_ends = PyBytes_FromStringAndSize(NULL, 4 * n);
    postings = PyBytes_FromStringAndSize(NULL, 4 * npairs);
    posting_ends = PyBytes_FromStringAndSize(NULL, 4 * n);
    if (names == NULL || name_ends == NULL || postings == NULL || posting_ends == NULL) goto done;
    char *nb = PyBytes_AS_STRING(names);
    uint32_t *ne = (uint32_t *)PyBytes_AS_STRING(name_ends);
    uint32_t *pe = (uint32_t *)PyBytes_AS_STRING(posting_ends);
    int32_t *pv = (int32_t *)PyBytes_AS_STRING(postings);
    uint32_t nend = 0, pend = 0;
    for (Py_ssize_t k = 0; k < n; k++) { /* in sorted order: the names, and where each's postings go */
        const name_t *e = &t.names[order[k]];
        memcpy(nb + nend, e->p, e->n);
        ne[k] = nend += e->n;
        at[order[k]] = (int32_t)(pend / 4);
        pe[k] = pend += 4 * e->count;
    }
    for (Py_ssize_t j = 0; j < npairs; j++) /* (in file order: each name's postings stay so) */
        pv[at[pairs.v[2 * j]]++] = pairs.v[2 * j + 1];
    out = PyTuple_Pack(4, names, name_ends, postings, posting_ends);
    goto done; /* (the references dropped below: `out` holds its own) */
nomem:
    PyErr_NoMemory();
done:
    Py_XDECREF(names);
    Py_XDECREF(name_ends);
    Py_XDECREF(postings);
    Py_XDECREF(posting_ends);
    PyMem_Free(t.names);
    PyMem_Free(t.slots);
    PyMem_Free(pairs.v);
    PyMem_Free(order);
    PyMem_Free(at);
    return out;
}
