/*
 * facts_dumps: a file's facts blob (indexer/lang/api.py FileFacts.to_bytes) written from the
 * FileFacts' own lists, byte for byte what marshal.dumps (version 4) writes of the tuple of
 * plain tuples to_bytes made before: its lists copied fact by fact into plain tuples (a
 * tuple and a list per fact list, made and freed per file) and marshal's reference table
 * (an entry malloc'd per object met) were ~0.145 cpu-s of Django's ~0.93 s of extraction
 * beyond the parse. The bytes must stay the same (FACTS_FORMAT 4: the facts cache, and every
 * digest over blobs), so this writes marshal's forms and takes marshal's references:
 *
 * - marshal (3.11) gives an object a reference number (FLAG_REF, then TYPE_REF 'r' where met
 *   again) when more than one reference holds it, by identity. The plain tuples and lists
 *   to_bytes made are not made here: they are "virtual". A virtual container held one
 *   reference to each of its items, so an item of a virtual container always counts as
 *   shared (refcount + 1 > 1); a virtual container itself was new, held once (no FLAG_REF).
 *   Deeper objects (a parameter pair in a SymbolFact's params) are held as they are.
 * - a fact that is an exact tuple was put in the plain list as itself (tuple(x) is x): it is
 *   an item of a virtual list, so shared; a fact of a tuple subclass became a virtual plain
 *   tuple of its fields.
 * - the calls and the references are a blob of their own (a separate marshal.dumps, its
 *   own reference numbers) held once by the outer tuple: a bytes written inline.
 * - strs: interned or not ('Z'/'z', 'A'/'a', 't'/'u', as marshal tells them apart).
 *
 * `forms` says per item of the outer tuple: 'v' a value, 'l' a list of facts, 'n' a list of
 * facts written as a nested blob (or, when it is bytes, the blob kept undecoded: a value).
 * A value this does not write as marshal would (an int beyond 32 bits, a float, a set, a str
 * with a lone surrogate, a list item that is not a tuple, nesting beyond MAX_DEPTH) makes
 * it answer None, and the caller marshals as before: the same bytes either way
 * (tests/test_facts_blob.py compares the two).
 */
#include "core.h"

#define FLAG_REF 0x80
#define MAX_DEPTH 100

/* marshal's references: objects by identity -> their number, for one blob (open
 * addressing over the pointers, sized per call), and the nesting being written */
typedef struct {
    PyObject **keys;
    int32_t *nos;
    size_t mask, used;
    int depth;
} refs_t;

static int refs_init(refs_t *t, size_t hint) {
    size_t n = 256;
    while (n < 2 * hint) n *= 2;
    t->keys = PyMem_Calloc(n, sizeof *t->keys);
    t->nos = PyMem_Malloc(n * sizeof *t->nos);
    t->mask = n - 1;
    t->used = 0;
    t->depth = 0;
    if (t->keys == NULL || t->nos == NULL) {
        PyMem_Free(t->keys);
        PyMem_Free(t->nos);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void refs_free(refs_t *t) {
    PyMem_Free(t->keys);
    PyMem_Free(t->nos);
}

static inline size_t ptr_home(const void *p, size_t mask) {
    return table_home((Py_hash_t)((uintptr_t)p >> 4), mask);
}

static int refs_grow(refs_t *t) {
    size_t n = 2 * (t->mask + 1);
    PyObject **keys = PyMem_Calloc(n, sizeof *keys);
    int32_t *nos = PyMem_Malloc(n * sizeof *nos);
    if (keys == NULL || nos == NULL) {
        PyMem_Free(keys);
        PyMem_Free(nos);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i <= t->mask; i++) {
        if (t->keys[i] == NULL) continue;
        size_t s = ptr_home(t->keys[i], n - 1);
        while (keys[s] != NULL) s = (s + 1) & (n - 1);
        keys[s] = t->keys[i];
        nos[s] = t->nos[i];
    }
    refs_free(t);
    t->keys = keys;
    t->nos = nos;
    t->mask = n - 1;
    return 0;
}

/* marshal's w_ref: an object held more than once (`shared`: by a virtual container, or by
 * its refcount) gets a number at first sight (its type byte then carries FLAG_REF: *flag)
 * and is a reference after (1: written). 0: write it; 2: too many (fall back); -1: error. */
static int put_ref(out_t *o, refs_t *t, PyObject *v, int shared, int *flag) {
    *flag = 0;
    if (!shared && Py_REFCNT(v) == 1) return 0;
    size_t s = ptr_home(v, t->mask);
    for (PyObject *k; (k = t->keys[s]) != NULL; s = (s + 1) & t->mask) {
        if (k == v) {
            if (out_byte(o, 'r') < 0 || out_int32(o, t->nos[s]) < 0) return -1;
            return 1;
        }
    }
    if (t->used >= INT32_MAX) return 2;
    if (2 * (t->used + 1) > t->mask + 1) {
        if (refs_grow(t) < 0) return -1;
        s = ptr_home(v, t->mask);
        while (t->keys[s] != NULL) s = (s + 1) & t->mask;
    }
    t->keys[s] = v;
    t->nos[s] = (int32_t)t->used++;
    *flag = FLAG_REF;
    return 0;
}

static int put_object(out_t *o, refs_t *t, PyObject *v, int shared);

/* a tuple's items (after its header); `shared`: each is held by a virtual tuple too */
static int put_items(out_t *o, refs_t *t, PyObject *v, int shared) {
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = put_object(o, t, PyTuple_GET_ITEM(v, i), shared);
        if (r <= 0) return r;
    }
    return 1;
}

/* 0, or -1 on error */
static int put_tuple_header(out_t *o, Py_ssize_t n, int flag) {
    if (n < 256) return out_byte(o, ')' | flag) < 0 || out_byte(o, (int)n) < 0 ? -1 : 0;
    return out_byte(o, '(' | flag) < 0 || out_int32(o, (int32_t)n) < 0 ? -1 : 0;
}

/* put_ref's answer as put_object's: 1 written, 0 fall back, -1 error; or 2: write it */
static inline int ref_answer(int r) { return r == 0 ? 2 : r == 2 ? 0 : r; }

/* 1 written, 0 not written as marshal would (the caller falls back), -1 error */
static int put_str(out_t *o, PyObject *v, int flag) {
    int interned = PyUnicode_CHECK_INTERNED(v) != 0;
    Py_ssize_t n;
    const char *s;
    int type;
    if (PyUnicode_IS_ASCII(v)) {
        n = PyUnicode_GET_LENGTH(v);
        s = (const char *)PyUnicode_1BYTE_DATA(v);
        type = n < 256 ? (interned ? 'Z' : 'z') : (interned ? 'A' : 'a');
    } else {
        s = PyUnicode_AsUTF8AndSize(v, &n);
        if (s == NULL) { /* a lone surrogate: marshal writes it with surrogatepass */
            PyErr_Clear();
            return 0;
        }
        type = interned ? 't' : 'u';
    }
    if (n > INT32_MAX) return 0;
    if (o->len + n + 5 > o->cap && out_grow(o, n + 5) < 0) return -1; /* (room once) */
    o->data[o->len++] = (char)(type | flag);
    if (type == 'z' || type == 'Z') {
        o->data[o->len++] = (char)n;
    } else {
        out_set_int32(o->data + o->len, (int32_t)n);
        o->len += 4;
    }
    memcpy(o->data + o->len, s, (size_t)n);
    o->len += n;
    return 1;
}

/* marshal's w_object for the values facts hold. `shared`: an item of a virtual container. */
static int put_object(out_t *o, refs_t *t, PyObject *v, int shared) {
    PyTypeObject *type = Py_TYPE(v);
    if (type == &PyUnicode_Type) { /* (most values: the type tested once) */
        if (t->depth >= MAX_DEPTH) return 0;
        int flag, r = ref_answer(put_ref(o, t, v, shared, &flag));
        return r != 2 ? r : put_str(o, v, flag);
    }
    if (v == Py_None) return out_byte(o, 'N') < 0 ? -1 : 1;
    if (v == Py_False) return out_byte(o, 'F') < 0 ? -1 : 1;
    if (v == Py_True) return out_byte(o, 'T') < 0 ? -1 : 1;
    if (!(type == &PyLong_Type || type == &PyTuple_Type || type == &PyList_Type ||
          type == &PyDict_Type || type == &PyBytes_Type))
        return 0; /* (floats, sets, ...: none in facts) */
    if (type == &PyLong_Type) { /* (before the ref: a long beyond 32 bits is marshal's) */
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (overflow || x < INT32_MIN || x > INT32_MAX) return 0;
        int flag, r = ref_answer(put_ref(o, t, v, shared, &flag));
        if (r != 2) return r;
        return out_byte(o, 'i' | flag) < 0 || out_int32(o, (int32_t)x) < 0 ? -1 : 1;
    }
    if (t->depth >= MAX_DEPTH) return 0;
    int flag, r = ref_answer(put_ref(o, t, v, shared, &flag));
    if (r != 2) return r;
    if (type == &PyBytes_Type) {
        Py_ssize_t n = PyBytes_GET_SIZE(v);
        if (n > INT32_MAX) return 0;
        if (out_byte(o, 's' | flag) < 0 || out_int32(o, (int32_t)n) < 0 ||
            out_bytes(o, PyBytes_AS_STRING(v), n) < 0)
            return -1;
        return 1;
    }
    t->depth++;
    int rc = 1;
    if (type == &PyTuple_Type) {
        rc = put_tuple_header(o, PyTuple_GET_SIZE(v), flag) < 0 ? -1 : put_items(o, t, v, 0);
    } else if (type == &PyList_Type) {
        Py_ssize_t n = PyList_GET_SIZE(v);
        if (n > INT32_MAX) rc = 0;
        else if (out_byte(o, '[' | flag) < 0 || out_int32(o, (int32_t)n) < 0) rc = -1;
        for (Py_ssize_t i = 0; rc > 0 && i < n; i++) rc = put_object(o, t, PyList_GET_ITEM(v, i), 0);
    } else { /* a dict: its items, then TYPE_NULL */
        if (out_byte(o, '{' | flag) < 0) rc = -1;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (rc > 0 && PyDict_Next(v, &pos, &key, &value)) {
            rc = put_object(o, t, key, 0);
            if (rc > 0) rc = put_object(o, t, value, 0);
        }
        if (rc > 0 && out_byte(o, '0') < 0) rc = -1;
    }
    t->depth--;
    return rc;
}

/* A list of facts as to_bytes' plain list of plain tuples (virtual: held once, no ref). */
static int put_facts(out_t *o, refs_t *t, PyObject *facts) {
    if (!PyList_CheckExact(facts)) return 0;
    Py_ssize_t n = PyList_GET_SIZE(facts);
    if (n > INT32_MAX) return 0;
    if (out_byte(o, '[') < 0 || out_int32(o, (int32_t)n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *fact = PyList_GET_ITEM(facts, i);
        int r;
        if (PyTuple_CheckExact(fact)) { /* (tuple(x) is x: in the plain list as itself) */
            r = put_object(o, t, fact, 1);
        } else if (PyTuple_Check(fact)) {
            r = put_tuple_header(o, PyTuple_GET_SIZE(fact), 0) < 0 ? -1 : put_items(o, t, fact, 1);
        } else {
            r = 0; /* (tuple() of some other sequence: marshal's way) */
        }
        if (r <= 0) return r;
    }
    return 1;
}

/* The facts of a list as their own blob (marshal.dumps of the plain list), held once by the
 * outer tuple: a bytes (its length set once written). */
static int put_nested(out_t *o, PyObject *facts) {
    refs_t t;
    if (refs_init(&t, (size_t)PyList_GET_SIZE(facts) * 2) < 0) return -1;
    int r = out_byte(o, 's') < 0 || out_int32(o, 0) < 0 ? -1 : 1;
    Py_ssize_t start = o->len;
    if (r > 0) r = put_facts(o, &t, facts);
    refs_free(&t);
    if (r > 0) {
        if (o->len - start > INT32_MAX) return 0;
        out_set_int32(o->data + start - 4, (int32_t)(o->len - start));
    }
    return r;
}

PyObject *core_facts_dumps(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || !PyBytes_Check(args[1]) ||
        PyBytes_GET_SIZE(args[1]) != PyTuple_GET_SIZE(args[0]) ||
        PyTuple_GET_SIZE(args[0]) >= 256) {
        PyErr_SetString(PyExc_TypeError,
                        "facts_dumps(items: tuple, forms: bytes of one form per item)");
        return NULL;
    }
    PyObject *items = args[0];
    const char *forms = PyBytes_AS_STRING(args[1]);
    Py_ssize_t n = PyTuple_GET_SIZE(items), hint = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(items, i);
        if (forms[i] == 'l' && PyList_CheckExact(v)) hint += PyList_GET_SIZE(v);
    }
    out_t o = {NULL, 0, 0, 0};
    refs_t t;
    if (out_grow(&o, 64 + 48 * hint) < 0 || refs_init(&t, (size_t)hint * 3) < 0) {
        PyMem_Free(o.data);
        return NULL;
    }
    /* the outer tuple: new, held once */
    int r = put_tuple_header(&o, n, 0) < 0 ? -1 : 1;
    for (Py_ssize_t i = 0; r > 0 && i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(items, i);
        switch (forms[i]) {
        case 'v':
            r = put_object(&o, &t, v, 0);
            break;
        case 'l':
            r = put_facts(&o, &t, v);
            break;
        case 'n':
            r = PyList_CheckExact(v) ? put_nested(&o, v) : put_object(&o, &t, v, 0);
            break;
        default:
            PyErr_Format(PyExc_ValueError, "facts_dumps: no form %c", forms[i]);
            r = -1;
        }
    }
    refs_free(&t);
    return out_answer(&o, r);
}
