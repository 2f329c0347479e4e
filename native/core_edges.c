/*
 * dedupe_edges: one edge per (relation, source, target) of a resolved file, the rule of
 * indexer/resolved.py `better` (most confident, then not a relay, then earliest line, then
 * reason), sorted. Every resolved file of a full build passes here (Django: ~240K edges);
 * the Python loop was ~4% of resolving.
 */
#include "core.h"

#include <stddef.h>

/* 1 when edge e is better than cur, 0 when not, -1 on error (`better` in resolved.py). */
static int edge_better(PyObject *e, PyObject *cur, PyObject *relay) {
    double ce = PyFloat_AsDouble(PyTuple_GET_ITEM(e, 3));
    if (ce == -1.0 && PyErr_Occurred()) return -1;
    double cc = PyFloat_AsDouble(PyTuple_GET_ITEM(cur, 3));
    if (cc == -1.0 && PyErr_Occurred()) return -1;
    if (ce != cc) return ce > cc; /* (-ce < -cc) */
    PyObject *re = PyTuple_GET_ITEM(e, 4), *rc = PyTuple_GET_ITEM(cur, 4);
    int xe = PyObject_RichCompareBool(re, relay, Py_EQ);
    if (xe < 0) return -1;
    int xc = PyObject_RichCompareBool(rc, relay, Py_EQ);
    if (xc < 0) return -1;
    if (xe != xc) return xe < xc; /* not a relay first */
    PyObject *le = PyTuple_GET_ITEM(e, 5), *lc = PyTuple_GET_ITEM(cur, 5);
    int eq = PyObject_RichCompareBool(le, lc, Py_EQ);
    if (eq < 0) return -1;
    if (!eq) return PyObject_RichCompareBool(le, lc, Py_LT);
    eq = PyObject_RichCompareBool(re, rc, Py_EQ);
    if (eq < 0) return -1;
    if (!eq) return PyObject_RichCompareBool(re, rc, Py_LT);
    return 0;
}

/* Order of two str: code point order, as Python's `<` (memcmp for two one-byte strings). */
static int str_order(PyObject *x, PyObject *y) {
    if (x == y) return 0;
    if (PyUnicode_KIND(x) == PyUnicode_1BYTE_KIND && PyUnicode_KIND(y) == PyUnicode_1BYTE_KIND) {
        Py_ssize_t nx = PyUnicode_GET_LENGTH(x), ny = PyUnicode_GET_LENGTH(y);
        int c = memcmp(PyUnicode_1BYTE_DATA(x), PyUnicode_1BYTE_DATA(y),
                       (size_t)(nx < ny ? nx : ny));
        if (c != 0) return c;
        return nx < ny ? -1 : nx > ny;
    }
    return PyUnicode_Compare(x, y); /* (two str: never an error) */
}

/* The edges kept by the current call, by (rel, src, dst): an open-addressing table of this
 * file's own, kept from call to call (a slot is of the call whose generation it holds),
 * probed by the three strs' hashes (each str keeps its own once computed): a dict keyed by a
 * 3-tuple sliced from every edge cost ~1,200 instructions an edge. */
typedef struct {
    Py_ssize_t at; /* the kept edge's place in `kept` */
    Py_hash_t hash;
    uint32_t gen;
} kept_key_t;
static kept_key_t *key_slots;
static size_t key_mask; /* slots - 1 (a power of two) */
static uint32_t key_gen;

static inline size_t key_home(Py_hash_t h) { return table_home(h, key_mask); }

/* A table of this file's (key_slots, rank_slots) made ready for a call: room for `n` keys
 * at most half full (`least` slots at least), every slot free (a new generation); -1
 * without memory. Its slots are `size` bytes, their generation a uint32 at `gen_at`. */
static int table_begin(void **slots, size_t *mask, uint32_t *gen, size_t size, size_t gen_at,
                       Py_ssize_t n, size_t least) {
    size_t want = least;
    while (want < 2 * (size_t)n) want *= 2;
    if (*slots == NULL || *mask + 1 < want) {
        PyMem_Free(*slots);
        *slots = PyMem_Calloc(want, size);
        if (*slots == NULL) {
            *mask = 0;
            PyErr_NoMemory();
            return -1;
        }
        *mask = want - 1;
        *gen = 0;
    }
    if (++*gen == 0) { /* (wrapped: no slot may look current) */
        for (size_t i = 0; i <= *mask; i++) memset((char *)*slots + i * size + gen_at, 0, 4);
        *gen = 1;
    }
    return 0;
}

static int keys_begin(Py_ssize_t n) {
    return table_begin((void **)&key_slots, &key_mask, &key_gen, sizeof *key_slots,
                       offsetof(kept_key_t, gen), n, 1024);
}

/* `e` as a tuple of `type` (a new reference): itself when it is one, else its items in one */
static PyObject *as_type(PyObject *e, PyTypeObject *type) {
    if (type == NULL || Py_IS_TYPE(e, type)) return Py_NewRef(e);
    Py_ssize_t n = PyTuple_GET_SIZE(e);
    PyObject *made = type->tp_alloc(type, n);
    if (made == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(made, i, Py_NewRef(PyTuple_GET_ITEM(e, i)));
    return made;
}

/* The sort of the edges kept. Most comparisons are between edges of different sources (a
 * file's scopes: tens to hundreds, each met by many edges) or relations, and comparing their
 * strs was most of the sort (memcmp over the file's common `path::` prefix, three strs an
 * edge): so each distinct relation and source is ranked once (their strs sorted), and edges
 * are sorted by (relation rank, source rank), their targets' strs compared only on a tie. */
typedef struct {
    uint64_t rank; /* relation rank << 32 | source rank */
    PyObject *edge;
} ranked_t;

/* the distinct strs of one field of the kept edges, by value: slot -> its place in `held` */
typedef struct {
    Py_ssize_t at;
    uint32_t gen;
} rank_slot_t;
static rank_slot_t *rank_slots;
static size_t rank_mask;
static uint32_t rank_gen;

static int ranks_begin(Py_ssize_t n) {
    return table_begin((void **)&rank_slots, &rank_mask, &rank_gen, sizeof *rank_slots,
                       offsetof(rank_slot_t, gen), n, 256);
}

/* the place in `held` (`*n` distinct so far) of a str equal to `s`, added when new */
static Py_ssize_t distinct_at(PyObject *s, PyObject **held, Py_ssize_t *n) {
    Py_hash_t h = PyObject_Hash(s); /* (cached: the dedupe hashed every key's strs) */
    size_t slot = table_home(h, rank_mask);
    for (rank_slot_t *r; (r = &rank_slots[slot])->gen == rank_gen; slot = (slot + 1) & rank_mask)
        if (same_str(held[r->at], s)) return r->at;
    rank_slots[slot] = (rank_slot_t){*n, rank_gen};
    held[*n] = s;
    return (*n)++;
}

static int str_sort_order(const void *a, const void *b) {
    return str_order(*(PyObject *const *)a, *(PyObject *const *)b);
}

/* whether x sorts before y: by rank, then by target (the keys are unique) */
static inline int ranked_less(const ranked_t *x, const ranked_t *y) {
    if (x->rank != y->rank) return x->rank < y->rank;
    return str_order(PyTuple_GET_ITEM(x->edge, 2), PyTuple_GET_ITEM(y->edge, 2)) < 0;
}

/* a merge sort of a[0:n] (tmp: room for n), the comparisons inline: qsort's calls through
 * a pointer and its generic moves of 16-byte items were most of its cost */
static void ranked_sort(ranked_t *a, ranked_t *tmp, Py_ssize_t n) {
    if (n <= 12) { /* (insertion) */
        for (Py_ssize_t i = 1; i < n; i++) {
            ranked_t v = a[i];
            Py_ssize_t j = i;
            for (; j > 0 && ranked_less(&v, &a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    Py_ssize_t h = n / 2;
    ranked_sort(a, tmp, h);
    ranked_sort(a + h, tmp, n - h);
    if (!ranked_less(&a[h], &a[h - 1])) return; /* (already in order) */
    memcpy(tmp, a, (size_t)h * sizeof *a);
    Py_ssize_t i = 0, j = h, k = 0;
    while (i < h && j < n) a[k++] = ranked_less(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
    while (i < h) a[k++] = tmp[i++];
}

/* `kept[0:k]` sorted by (rel, src, dst), str by str (unique keys: the tuples' own order);
 * -1 without memory */
static int sort_kept(PyObject **kept, Py_ssize_t k) {
    if (k < 2) return 0;
    PyObject **held = PyMem_New(PyObject *, k);
    Py_ssize_t *where = PyMem_New(Py_ssize_t, 2 * k), *rank = PyMem_New(Py_ssize_t, k);
    ranked_t *r = PyMem_New(ranked_t, k), *tmp = PyMem_New(ranked_t, k / 2 + 1);
    int rc = -1;
    if (held == NULL || where == NULL || rank == NULL || r == NULL || tmp == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int f = 0; f < 2; f++) { /* the relations, then the sources */
        if (ranks_begin(k) < 0) goto done;
        Py_ssize_t n = 0, last_at = -1;
        PyObject *last = NULL; /* (consecutive edges mostly share their source's object) */
        for (Py_ssize_t i = 0; i < k; i++) {
            PyObject *str = PyTuple_GET_ITEM(kept[i], f);
            if (str != last) {
                last = str;
                last_at = distinct_at(str, held, &n);
            }
            where[f * k + i] = last_at;
        }
        /* each distinct str's rank: its place among them sorted (a copy is sorted, and each
           one's place in `held` found again in the table) */
        PyObject **sorted = PyMem_New(PyObject *, n);
        if (sorted == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(sorted, held, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, str_sort_order);
        for (Py_ssize_t j = 0; j < n; j++) {
            Py_ssize_t dummy = n, at = distinct_at(sorted[j], held, &dummy);
            rank[at] = j;
        }
        PyMem_Free(sorted);
        for (Py_ssize_t i = 0; i < k; i++) where[f * k + i] = rank[where[f * k + i]];
    }
    for (Py_ssize_t i = 0; i < k; i++)
        r[i] = (ranked_t){(uint64_t)where[i] << 32 | (uint64_t)where[k + i], kept[i]};
    ranked_sort(r, tmp, k);
    for (Py_ssize_t i = 0; i < k; i++) kept[i] = r[i].edge;
    rc = 0;
done:
    PyMem_Free(held);
    PyMem_Free(where);
    PyMem_Free(rank);
    PyMem_Free(r);
    PyMem_Free(tmp);
    return rc;
}

PyObject *core_dedupe_edges(PyObject *self, PyObject *args) {
    PyObject *edges, *relay, *as = Py_None;
    (void)self;
    if (!PyArg_ParseTuple(args, "OU|O:dedupe_edges", &edges, &relay, &as)) return NULL;
    /* `as`: the type the kept edges are made (Edge: the resolvers append plain tuples, a
       tuple.__new__(Edge, ...) per edge met cost ~0.2 us more, duplicates included) */
    PyTypeObject *type = NULL;
    if (as != Py_None) {
        type = (PyTypeObject *)as;
        if (!PyType_Check(as) || !PyType_IsSubtype(type, &PyTuple_Type) ||
            type->tp_basicsize != PyTuple_Type.tp_basicsize ||
            type->tp_itemsize != PyTuple_Type.tp_itemsize || type->tp_dictoffset != 0) {
            PyErr_SetString(PyExc_TypeError, "dedupe_edges: a tuple type without a __dict__");
            return NULL;
        }
    }
    /* (a list subclass as it is: PySequence_Fast copies any list but an exact one, and the
       resolvers' edges are an engine/edges.py Edges; nothing here runs code that could
       change it) */
    PyObject *seq = PyList_Check(edges)
                        ? Py_NewRef(edges)
                        : PySequence_Fast(edges, "dedupe_edges: edges must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), k = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject **kept = PyMem_New(PyObject *, n > 0 ? n : 1); /* (borrowed: `seq` holds them) */
    if (kept == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (keys_begin(n) < 0) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = items[i];
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 6) {
            PyErr_SetString(PyExc_TypeError, "dedupe_edges: an edge is a tuple of 6 fields");
            goto fail;
        }
        uint64_t h = 0;
        for (int f = 0; f < 3; f++) {
            PyObject *s = PyTuple_GET_ITEM(e, f);
            if (!PyUnicode_CheckExact(s)) {
                PyErr_SetString(PyExc_TypeError, "dedupe_edges: rel, src and dst are str");
                goto fail;
            }
            Py_hash_t hs = PyObject_Hash(s);
            if (hs == -1) goto fail;
            h = (h ^ (uint64_t)hs) * 0x100000001B3u;
        }
        size_t slot = key_home((Py_hash_t)h);
        kept_key_t *at;
        for (; (at = &key_slots[slot])->gen == key_gen; slot = (slot + 1) & key_mask) {
            PyObject *cur = kept[at->at];
            if (at->hash == (Py_hash_t)h &&
                same_str(PyTuple_GET_ITEM(e, 0), PyTuple_GET_ITEM(cur, 0)) &&
                same_str(PyTuple_GET_ITEM(e, 1), PyTuple_GET_ITEM(cur, 1)) &&
                same_str(PyTuple_GET_ITEM(e, 2), PyTuple_GET_ITEM(cur, 2)))
                break;
        }
        if (at->gen != key_gen) { /* a key met first */
            *at = (kept_key_t){k, (Py_hash_t)h, key_gen};
            kept[k++] = e;
            continue;
        }
        int put = edge_better(e, kept[at->at], relay);
        if (put < 0) goto fail;
        if (put) kept[at->at] = e;
    }
    if (sort_kept(kept, k) < 0) goto fail;
    PyObject *out = PyList_New(k);
    for (Py_ssize_t i = 0; out != NULL && i < k; i++) {
        PyObject *e = as_type(kept[i], type);
        if (e == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, e);
    }
    PyMem_Free(kept);
    Py_DECREF(seq);
    return out;
fail:
    PyMem_Free(kept);
    Py_DECREF(seq);
    return NULL;
}
