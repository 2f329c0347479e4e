/*
 * The native traversal core's shared declarations: buffers taken through the buffer
 * protocol, the CSR they make, scalar arguments, errors found with the GIL released and
 * the reusable visit marks (native/core_support.c), and the entry points of the other
 * translation units (native/_core.c registers them).
 */
#ifndef CODEIMPACT_CORE_H
#define CODEIMPACT_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { KIND_INT = 'i', KIND_UINT = 'u', KIND_FLOAT = 'f', KIND_MASK = 'm' };

typedef struct {
    Py_buffer view;
    int held;
    Py_ssize_t len; /* number of items */
} buf_t;

typedef struct {
    buf_t bp, bi, be, bc;
    const int64_t *indptr;
    const int32_t *indices;
    const uint8_t *etype;
    const float *conf;
    int64_t n, nnz;
} csr_t;

/* Errors found with the GIL released; reported after it is re-acquired. */
enum { E_OK = 0, E_NOMEM, E_INDPTR, E_INDEX, E_CHANGED };

static inline int row_ok(const csr_t *c, int64_t u) {
    int64_t a = c->indptr[u], b = c->indptr[u + 1];
    return a >= 0 && a <= b && b <= c->nnz;
}

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

int buf_get(PyObject *obj, buf_t *b, const char *name, const char *dtype, int kind,
            Py_ssize_t itemsize, int writable);
void buf_release(buf_t *b);
int check_outputs(const buf_t *const *outs, int n_outs, const buf_t *const *ins, int n_ins);
int arg_ll(PyObject *obj, const char *name, long long *out);
int arg_mask(PyObject *obj, uint32_t *out);
int arg_conf(PyObject *obj, double *out);
void csr_close(csr_t *c);
int csr_open(csr_t *c, PyObject *ip, PyObject *ix, PyObject *et, PyObject *cf);
void set_traversal_error(int err, int64_t where);
void mask_table(uint32_t mask, uint8_t allowed[256]);
int visit_begin(visit_t *v, int64_t n);
void visit_end(visit_t *v);
int open_node_mask(PyObject *obj, buf_t *b, int64_t n, const uint8_t **out);

/* core_index.c's fact helpers, shared with core_calls.c */
int fact_ok(PyObject *fact, Py_ssize_t n);
int str_ok(PyObject *s);
int starts(PyObject *s, const char *lit);
PyObject *setdefault_new(PyObject *d, PyObject *key, int list);
PyObject *get_or(PyObject *d, PyObject *key, PyObject *dflt);
PyObject *literal_str(const char *text);
PyObject *attr(PyObject *fi, const char *name, PyTypeObject *type);

/* core_shared.c: the values shared across the facts of files (typed_list) */
extern PyTypeObject SharedValues_Type;
int share_value(PyObject *values, PyObject **slot, int depth);
PyObject *shared_ascii(PyObject *values, const char *p, Py_ssize_t n);
PyObject *shared_int(PyObject *values, long v);

/* entry points */
PyObject *core_bfs(PyObject *self, PyObject *args);
PyObject *core_shortest_path(PyObject *self, PyObject *args);
PyObject *core_scc(PyObject *self, PyObject *args);
PyObject *core_dedupe_edges(PyObject *self, PyObject *args);
PyObject *core_resolved_blob(PyObject *self, PyObject *args);
PyObject *core_gather_file(PyObject *self, PyObject *args);
PyObject *core_gather_blob(PyObject *self, PyObject *args);
PyObject *core_invert_keys(PyObject *self, PyObject *blobs);
PyObject *core_names_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_symbol_rows(PyObject *self, PyObject *args);
PyObject *core_typed_list(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_facts_loads(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_facts_dumps(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_populate_arenas(PyObject *self, PyObject *on);
PyObject *core_arenas_populated(PyObject *self, PyObject *unused);
PyObject *core_tuple_fields(PyObject *self, PyObject *args);
PyObject *core_rows_prefixed(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_test_uses(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_index_passes(PyObject *self, PyObject *args);
PyObject *core_parse_steps(PyObject *self, PyObject *chain);
PyObject *core_parse_steps_cache(PyObject *self, PyObject *unused);
PyObject *core_index_calls_pass(PyObject *self, PyObject *args);
PyObject *core_playback_calls(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_chain_method(PyObject *self, PyObject *args);
PyObject *core_lookup_method(PyObject *self, PyObject *args);
PyObject *core_csr_from_codes(PyObject *self, PyObject *args);
PyObject *core_patch_codes(PyObject *self, PyObject *args);
PyObject *core_rank_order(PyObject *self, PyObject *arg);
PyObject *core_patched_ranks(PyObject *self, PyObject *args);
PyObject *core_tables_build(PyObject *self, PyObject *args);
PyObject *core_buckets_split(PyObject *self, PyObject *args);
PyObject *core_crc_index(PyObject *self, PyObject *args);

/* marshal bytes being written (core_blob.c, core_facts_blob.c): a buffer grown by doubling,
 * and (core_blob.c) the reference numbers given so far */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
    Py_ssize_t nrefs;
} out_t;

int out_grow(out_t *o, Py_ssize_t more); /* room for `more` bytes; -1 without memory */
/* a writer's answer, its buffer freed: the bytes written (r > 0), None (0: a value it does not
 * write, the caller falls back) or NULL (-1: the error set) */
PyObject *out_answer(out_t *o, int r);

static inline int out_byte(out_t *o, int c) {
    if (o->len == o->cap && out_grow(o, 1) < 0) return -1;
    o->data[o->len++] = (char)c;
    return 0;
}

/* marshal's w_long: 4 bytes, little-endian */
static inline void out_set_int32(char *at, int32_t v) {
    uint32_t u = (uint32_t)v;
    unsigned char *p = (unsigned char *)at;
    p[0] = (unsigned char)(u & 0xff);
    p[1] = (unsigned char)((u >> 8) & 0xff);
    p[2] = (unsigned char)((u >> 16) & 0xff);
    p[3] = (unsigned char)((u >> 24) & 0xff);
}

static inline int out_int32(out_t *o, int32_t v) {
    if (o->len + 4 > o->cap && out_grow(o, 4) < 0) return -1; /* (a call only to grow) */
    out_set_int32(o->data + o->len, v);
    o->len += 4;
    return 0;
}

static inline int out_bytes(out_t *o, const char *s, Py_ssize_t n) {
    if (o->len + n > o->cap && out_grow(o, n) < 0) return -1;
    memcpy(o->data + o->len, s, (size_t)n);
    o->len += n;
    return 0;
}

/* The home slot of a hash in an open-addressing table of mask+1 slots (a power of two):
 * Fibonacci hashing, so the low bits of CPython's str hashes do not cluster. */
static inline size_t table_home(Py_hash_t h, size_t mask) {
    return (size_t)(((uint64_t)h * 0x9E3779B97F4A7C15u) >> 32) & mask;
}

/* A hash of n bytes, 8 at a time (the tables of bytes: core_gather.c's uids, core_keys.c's
 * names). */
static inline uint64_t hash_bytes(const char *p, Py_ssize_t n) {
    uint64_t h = 0x9E3779B97F4A7C15u ^ (uint64_t)n, w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, p, (size_t)n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

/* Two exact strs equal as dict keys are: the same object, or the same kind, length and
 * code units. */
static inline int same_str(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
}

#endif
