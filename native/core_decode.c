/*
 * facts_loads: a file's facts blob (indexer/lang/api.py FileFacts.to_bytes: marshal bytes)
 * decoded as FileFacts.from_bytes wants it, in one pass: the lists of facts made lists of
 * their named tuple types at once, and the strs and ints of the shared fields
 * (api.py _SHARED_FIELDS) looked up in the SharedValues table (core_shared.c) BEFORE they
 * are made. marshal.loads then typed_list made every str and int of a blob, a plain tuple
 * per fact, a list of them and a refs list; typed_list retyped or copied each tuple and
 * share_value dropped the strs and ints another file had made already (Django's build:
 * ~387K strs of ~139K values): ~0.55 G instructions of the resolve host's set-up.
 *
 * The decoder reads the forms marshal.dumps (version 4) writes for the values facts hold
 * (None, bools, ints of 32 bits, floats, strs, bytes, tuples, lists, dicts, references);
 * any other form, or a blob that is not the shape asked for (a fact of another size, a
 * reference to a fact made a typed one), makes it answer None and the caller decodes the
 * blob as before (marshal.loads, typed_list): the same value either way. Strs marshal
 * interns are interned here too, as marshal does.
 */

#include "core.h"

#define MAX_DEPTH 100 /* (deeper: None, the caller's marshal decodes it) */
#define TYPED 0x80     /* (reader_t.typed) */
#define SHARED 0x7f

typedef struct {
    PyObject *type; /* a tuple subclass, or NULL: not typed */
    unsigned long long mask;
    Py_ssize_t fields;
} spec_t;

typedef struct {
    const unsigned char *p, *end;
    PyObject **refs;  /* references (a shared field's tuple met again has its items replaced
                         in place: a ref held only by it would go) */
    uint8_t *typed;   /* per ref: TYPED (a typed list or fact: a reference to it, None) or
                         the share level its value was read at (SHARED for a str or int kept
                         by the values; a tuple's `share`): a reference read at that level or
                         below is that value already, not looked up again (share_value) */
    Py_ssize_t nrefs, cap;
    PyObject *values; /* SharedValues or NULL */
    int unread;       /* set: a form the decoder does not read (answer None) */
    int depth;
} reader_t;

static int need(reader_t *r, Py_ssize_t n) {
    if (r->end - r->p < n) {
        r->unread = 1;
        return 0;
    }
    return 1;
}

static long read_long(reader_t *r) {
    const unsigned char *p = r->p;
    r->p += 4;
    uint32_t x = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (long)(int32_t)x;
}

/* A slot in the refs for the object of a FLAG_REF header, in the order marshal numbers
 * them (a container's before its items); -1 on error. */
static Py_ssize_t reserve(reader_t *r) {
    if (r->nrefs == r->cap) {
        Py_ssize_t cap = r->cap ? r->cap * 2 : 256;
        PyObject **refs = PyMem_Realloc(r->refs, (size_t)cap * sizeof(PyObject *));
        if (refs == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        r->refs = refs;
        uint8_t *typed = PyMem_Realloc(r->typed, (size_t)cap);
        if (typed == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        r->typed = typed;
        r->cap = cap;
    }
    r->refs[r->nrefs] = NULL;
    r->typed[r->nrefs] = 0;
    return r->nrefs++;
}

/* The size a form writes next (4 bytes, or 1 when not `wide`), at most the bytes left (each
 * char, byte or item of it takes one at least); -1 (r->unread) past them. */
static Py_ssize_t read_size(reader_t *r, int wide) {
    if (!need(r, wide ? 4 : 1)) return -1;
    Py_ssize_t n = wide ? read_long(r) : *r->p++;
    if (n < 0 || n > r->end - r->p) {
        r->unread = 1;
        return -1;
    }
    return n;
}

/* A container begun (its items read next): its ref slot when the header has FLAG_REF
 * (`typed`: a reference to it is read marshal's way), a level deeper; -1 on error or past
 * MAX_DEPTH (r->unread). */
static int enter(reader_t *r, PyObject *v, int flag, int typed) {
    if (flag) {
        Py_ssize_t at = reserve(r);
        if (at < 0) return -1;
        r->refs[at] = Py_NewRef(v);
        r->typed[at] = (uint8_t)typed;
    }
    if (++r->depth > MAX_DEPTH) {
        r->unread = 1;
        return -1;
    }
    return 0;
}

static PyObject *read_object(reader_t *r, int share);
static PyObject *read_tuple(reader_t *r, int flag, Py_ssize_t n, int share, const spec_t *item);

/* A str of ASCII characters (codes a, z, A, Z); `share` > 0: looked up in the values first */
static PyObject *read_ascii(reader_t *r, Py_ssize_t n, int interned, int share) {
    if (!need(r, n)) return NULL;
    const char *p = (const char *)r->p;
    r->p += n;
    if (share > 0 && !interned && n >= 2) return shared_ascii(r->values, p, n);
    PyObject *s = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, p, n);
    if (s != NULL && interned) PyUnicode_InternInPlace(&s);
    if (s != NULL && share > 0 && share_value(r->values, &s, 0) < 0) Py_CLEAR(s);
    return s;
}

/* The object the next bytes write (a new reference); NULL with an exception (an error) or
 * without one (r->unread: a form not read here). `share` > 0: a shared field's value, its
 * strs and ints the ones the values keep, `share` - 1 levels into tuples (share_value's
 * depth + 1). */
static PyObject *read_object(reader_t *r, int share) {
    if (!need(r, 1)) return NULL;
    int code = *r->p++;
    int flag = code & 0x80;
    PyObject *v = NULL;
    Py_ssize_t n, at = -1;
    switch (code & 0x7f) {
    case 'N':
        return Py_NewRef(Py_None);
    case 'T':
        return Py_NewRef(Py_True);
    case 'F':
        return Py_NewRef(Py_False);
    case 'i':
        if (!need(r, 4)) return NULL;
        n = read_long(r);
        v = share > 0 ? shared_int(r->values, (long)n) : PyLong_FromLong((long)n);
        break;
    case 'g': {
        if (!need(r, 8)) return NULL;
        double d = PyFloat_Unpack8((const char *)r->p, 1);
        r->p += 8;
        if (d == -1.0 && PyErr_Occurred()) return NULL;
        v = PyFloat_FromDouble(d);
        break;
    }
    case 'z':
    case 'Z':
    case 'a':
    case 'A':
        /* (a, A: 4 bytes of size, z, Z: 1; A, Z: interned) */
        if ((n = read_size(r, (code & 0x7f) == 'a' || (code & 0x7f) == 'A')) < 0) return NULL;
        v = read_ascii(r, n, (code & 0x7f) == 'A' || (code & 0x7f) == 'Z', share);
        break;
    case 'u':
    case 't':
        if ((n = read_size(r, 1)) < 0) return NULL;
        v = PyUnicode_DecodeUTF8((const char *)r->p, n, "surrogatepass");
        r->p += n;
        if (v != NULL && (code & 0x7f) == 't') PyUnicode_InternInPlace(&v);
        if (v != NULL && share > 0 && share_value(r->values, &v, 0) < 0) Py_CLEAR(v);
        break;
    case 's':
        if ((n = read_size(r, 1)) < 0) return NULL;
        v = PyBytes_FromStringAndSize((const char *)r->p, n);
        r->p += n;
        break;
    case ')':
    case '(':
        if ((n = read_size(r, (code & 0x7f) == '(')) < 0) return NULL;
        return read_tuple(r, flag, n, share, NULL);
    case '[':
        if ((n = read_size(r, 1)) < 0) return NULL;
        v = PyList_New(n);
        if (v == NULL) return NULL;
        if (enter(r, v, flag, 0) < 0) goto error;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = read_object(r, 0);
            if (x == NULL) goto error;
            PyList_SET_ITEM(v, i, x);
        }
        r->depth--;
        return v;
    case '{':
        v = PyDict_New();
        if (v == NULL) return NULL;
        if (enter(r, v, flag, 0) < 0) goto error;
        for (;;) {
            if (!need(r, 1)) goto error;
            if (*r->p == '0') {
                r->p++;
                break;
            }
            PyObject *key = read_object(r, 0);
            if (key == NULL) goto error;
            PyObject *val = read_object(r, 0);
            if (val == NULL || PyDict_SetItem(v, key, val) < 0) {
                Py_DECREF(key);
                Py_XDECREF(val);
                goto error;
            }
            Py_DECREF(key);
            Py_DECREF(val);
        }
        r->depth--;
        return v;
    case 'r':
        if (!need(r, 4)) return NULL;
        n = read_long(r);
        if (n < 0 || n >= r->nrefs || r->refs[n] == NULL || r->typed[n] & TYPED) {
            r->unread = 1; /* (a bad reference: marshal says so; a typed one: marshal's way) */
            return NULL;
        }
        v = Py_NewRef(r->refs[n]);
        /* (~250K references per Django build, most to a value a shared field read already) */
        if (share > r->typed[n] && share_value(r->values, &v, share - 1) < 0) Py_CLEAR(v);
        return v;
    default:
        r->unread = 1;
        return NULL;
    }
    if (v != NULL && flag) {
        if ((at = reserve(r)) < 0) goto error;
        r->refs[at] = Py_NewRef(v);
        r->typed[at] = share > 0 ? SHARED : 0; /* (the value kept, or one never shared) */
    }
    return v;
error:
    Py_XDECREF(v);
    return NULL;
}

/* read_object for the forms most fields of a fact write: None and the bools, a reference to
 * a value read at the share level asked or above, an int of 32 bits and a short ASCII str
 * of a shared field (~1.3M fields per Django build: read_object's call, checks and switch
 * were ~70 instructions of each); any other form, or bytes cut short, read_object's way. */
static inline PyObject *read_field(reader_t *r, int share) {
    const unsigned char *p = r->p;
    Py_ssize_t left = r->end - p;
    if (left < 2) return read_object(r, share);
    int code = p[0];
    PyObject *v;
    switch (code) {
    case 'N':
        r->p++;
        return Py_NewRef(Py_None);
    case 'T':
        r->p++;
        return Py_NewRef(Py_True);
    case 'F':
        r->p++;
        return Py_NewRef(Py_False);
    case 'r': {
        if (left < 5) break;
        r->p++;
        Py_ssize_t n = read_long(r);
        if (n >= 0 && n < r->nrefs && r->refs[n] != NULL && !(r->typed[n] & TYPED) &&
            share <= r->typed[n])
            return Py_NewRef(r->refs[n]);
        r->p = p;
        break;
    }
    case 'i':
    case 'i' | 0x80:
        if (share <= 0 || left < 5) break;
        r->p++;
        v = shared_int(r->values, read_long(r));
        break;
    case 'z':
    case 'z' | 0x80: {
        Py_ssize_t n = p[1];
        if (share <= 0 || n < 2 || n > left - 2) break;
        r->p += 2 + n;
        v = shared_ascii(r->values, (const char *)p + 2, n);
        break;
    }
    default:
        break;
    }
    if (r->p == p) return read_object(r, share);
    if (v != NULL && code & 0x80) {
        Py_ssize_t at = reserve(r);
        if (at < 0) {
            Py_DECREF(v);
            return NULL;
        }
        r->refs[at] = Py_NewRef(v);
        r->typed[at] = SHARED;
    }
    return v;
}

/* A tuple of n items: `item` given, a fact of that spec (its fields in the mask shared, then
 * made the type in place); else a plain tuple, its items shared `share` - 1 levels on. */
static PyObject *read_tuple(reader_t *r, int flag, Py_ssize_t n, int share, const spec_t *item) {
    if (item != NULL && n != item->fields) {
        r->unread = 1; /* (typed_list says what is wrong) */
        return NULL;
    }
    PyObject *v = PyTuple_New(n);
    if (v == NULL) return NULL;
    if (enter(r, v, flag, item != NULL ? TYPED : share) < 0) goto error;
    for (Py_ssize_t k = 0; k < n; k++) {
        int s = item != NULL ? (r->values != NULL && k < 64 && (item->mask >> k) & 1 ? 3 : 0)
                             : (share > 0 ? share - 1 : 0);
        PyObject *x = read_field(r, s);
        if (x == NULL) goto error;
        PyTuple_SET_ITEM(v, k, x);
    }
    r->depth--;
    if (item != NULL && n > 0) /* (typed_list's retype: the type lays out its items as a tuple) */
        Py_SET_TYPE(v, (PyTypeObject *)Py_NewRef(item->type));
    return v;
error:
    Py_DECREF(v);
    return NULL;
}

/* The list of facts of `spec` the next bytes write */
static PyObject *read_facts(reader_t *r, const spec_t *spec) {
    if (!need(r, 1) || (r->p[0] & 0x7f) != '[') {
        r->unread = 1;
        return NULL;
    }
    int flag = *r->p++ & 0x80;
    Py_ssize_t n = read_size(r, 1);
    if (n < 0) return NULL;
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    if (enter(r, out, flag, TYPED) < 0) goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!need(r, 1)) goto error;
        int code = *r->p++;
        if ((code & 0x7f) != ')' && (code & 0x7f) != '(') {
            r->unread = 1; /* (not a tuple: typed_list's way) */
            goto error;
        }
        Py_ssize_t size = read_size(r, (code & 0x7f) == '(');
        PyObject *x = size < 0 ? NULL : read_tuple(r, code & 0x80, size, 0, spec);
        if (x == NULL) goto error;
        PyList_SET_ITEM(out, i, x);
    }
    r->depth--;
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

/* A spec item (type, mask, fields) read into *s; -1: an error set */
static int spec_of(PyObject *o, spec_t *s) {
    if (!PyTuple_CheckExact(o) || PyTuple_GET_SIZE(o) != 3 || !PyType_Check(PyTuple_GET_ITEM(o, 0))) {
        PyErr_SetString(PyExc_TypeError, "facts_loads: a spec item is (type, mask, fields)");
        return -1;
    }
    PyTypeObject *type = (PyTypeObject *)PyTuple_GET_ITEM(o, 0);
    /* (made in place from a tuple, as typed_list's retype: a heap tuple subclass laid out as
       a tuple, without a __dict__, weak references or a finalizer) */
    if (!PyType_IsSubtype(type, &PyTuple_Type) || type == &PyTuple_Type ||
        !(type->tp_flags & Py_TPFLAGS_HEAPTYPE) || type->tp_basicsize != PyTuple_Type.tp_basicsize ||
        type->tp_itemsize != PyTuple_Type.tp_itemsize || type->tp_dictoffset != 0 ||
        type->tp_weaklistoffset != 0 || type->tp_finalize != NULL || type->tp_del != NULL) {
        PyErr_Format(PyExc_TypeError, "facts_loads: %s is no plain named tuple", type->tp_name);
        return -1;
    }
    s->type = (PyObject *)type;
    s->mask = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(o, 1));
    if (s->mask == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    s->fields = PyLong_AsSsize_t(PyTuple_GET_ITEM(o, 2));
    if (s->fields == -1 && PyErr_Occurred()) return -1;
    if (s->fields < 1) {
        PyErr_SetString(PyExc_ValueError, "facts_loads: a fact type has fields");
        return -1;
    }
    return 0;
}

#define MAX_ITEMS 32

/* facts_loads(data, spec, values) -> the value marshal.loads(data) gives, the lists of facts
 * made typed lists; None for a blob the decoder does not read. `spec`: a spec item
 * (type, mask, fields): the blob is a list of such facts; or a tuple of spec items or None
 * per item of the blob's tuple: the items given a spec are lists of such facts. `values`:
 * a SharedValues the strs and ints of the fields in each mask are shared into, or None. */
PyObject *core_facts_loads(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyTuple_CheckExact(args[1]) ||
        (args[2] != Py_None && !PyObject_TypeCheck(args[2], &SharedValues_Type))) {
        PyErr_SetString(PyExc_TypeError, "facts_loads(data, spec, values): spec a tuple, values"
                                         " SharedValues or None");
        return NULL;
    }
    PyObject *spec = args[1];
    int one = PyTuple_GET_SIZE(spec) > 0 && PyType_Check(PyTuple_GET_ITEM(spec, 0));
    Py_ssize_t items = one ? 1 : PyTuple_GET_SIZE(spec);
    if (items > MAX_ITEMS) {
        PyErr_SetString(PyExc_ValueError, "facts_loads: too many spec items");
        return NULL;
    }
    spec_t specs[MAX_ITEMS];
    for (Py_ssize_t i = 0; i < items; i++) {
        PyObject *o = one ? spec : PyTuple_GET_ITEM(spec, i);
        specs[i].type = NULL;
        if (o != Py_None && spec_of(o, &specs[i]) < 0) return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    reader_t r = {.p = view.buf, .end = (const unsigned char *)view.buf + view.len,
                  .values = args[2] == Py_None ? NULL : args[2]};
    PyObject *out = NULL;
    if (one) {
        out = read_facts(&r, &specs[0]);
    } else if (need(&r, 2) && (r.p[0] & 0x7f) == ')' && r.p[1] == items && !(r.p[0] & 0x80)) {
        r.p += 2;
        out = PyTuple_New(items);
        for (Py_ssize_t i = 0; out != NULL && i < items; i++) {
            PyObject *x = specs[i].type != NULL ? read_facts(&r, &specs[i]) : read_object(&r, 0);
            if (x == NULL) Py_CLEAR(out);
            else PyTuple_SET_ITEM(out, i, x);
        }
    } else {
        r.unread = 1;
    }
    PyBuffer_Release(&view);
    for (Py_ssize_t i = 0; i < r.nrefs; i++) Py_XDECREF(r.refs[i]);
    PyMem_Free(r.refs);
    PyMem_Free(r.typed);
    if (out == NULL && !PyErr_Occurred()) Py_RETURN_NONE; /* (r.unread) */
    return out;
}
