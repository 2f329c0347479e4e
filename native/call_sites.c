/*
 * CallSites: the call sites of a query's call constructs (`reference.call`, `reference.new`
 * in the shared capture vocabulary: @callee called with @arguments), read in one C pass for
 * any language whose extraction reads a callee and its plain arguments as chains.
 *
 * What is language-specific is data given at construction: the node types whose text is
 * read as a chain (JS/TS: identifier, member_expression), the node type of an argument list,
 * and the field of the construct node that holds it when the match does not capture it. The
 * chain rules stay the language's Python `chain(node)`: a node of a plain type is looked up
 * by its raw text in the language's dict of texts already read (`seen`: raw bytes -> chain,
 * or None when the text is not a chain by itself), which `chain` fills; a hit is answered
 * here, anything else (a miss, a text that is not a plain chain, another node type) by
 * calling `chain` on the node. So the answers, and the very string objects (one per text
 * per file: what marshal shares in the facts blob), are `chain`'s.
 *
 * read(sites, source, seen, chain) -> [(start_byte, line, callee_chain, arguments)] with
 * arguments = ((index among the argument list's named children, chain), ...) for the
 * arguments of a plain type whose chain is not empty: what the Python handlers made with
 * node.start_byte, node.start_point[0] + 1, chain(callee) and a loop over
 * named_children (whose Node objects, made per argument, were most of the cost).
 */

#include "runner.h"

enum { ROLE_PLAIN = 1, ROLE_ARGUMENTS = 2 };

typedef struct {
    PyObject_HEAD
    const TSLanguage *language;
    uint32_t symbol_count;
    uint8_t *role; /* by symbol (ts_node_symbol: public, aliases included) */
    TSFieldId arguments_field; /* 0: none */
} CallSitesObject;

static void call_sites_dealloc(CallSitesObject *self) {
    PyMem_Free(self->role);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* role |= bit for every symbol whose name (node.type) is `name` */
static int mark_symbols(CallSitesObject *self, PyObject *name, uint8_t bit) {
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL) return -1;
    for (uint32_t s = 0; s < self->symbol_count; s++) {
        const char *sym = ts_language_symbol_name(self->language, (TSSymbol)s);
        if (sym != NULL && strcmp(sym, text) == 0) self->role[s] |= bit;
    }
    return 0;
}

static int call_sites_init(CallSitesObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"language", "plain_types", "arguments_type", "arguments_field",
                               NULL};
    PyObject *language, *plain, *arguments_type, *field = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!U|O:CallSites", keywords, &language,
                                     &PyTuple_Type, &plain, &arguments_type, &field))
        return -1;
    if (language_from_object(language, &self->language) < 0) return -1;
    self->symbol_count = ts_language_symbol_count(self->language);
    PyMem_Free(self->role);
    self->role = PyMem_Calloc(self->symbol_count ? self->symbol_count : 1, 1);
    if (self->role == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(plain); i++) {
        PyObject *name = PyTuple_GET_ITEM(plain, i);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "plain_types must be a tuple of str");
            return -1;
        }
        if (mark_symbols(self, name, ROLE_PLAIN) < 0) return -1;
    }
    if (mark_symbols(self, arguments_type, ROLE_ARGUMENTS) < 0) return -1;
    self->arguments_field = 0;
    if (field != Py_None) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(field, &n);
        if (text == NULL) return -1;
        self->arguments_field = ts_language_field_id_for_name(self->language, text, (uint32_t)n);
        if (self->arguments_field == 0) {
            PyErr_Format(PyExc_ValueError, "the language has no field %R", field);
            return -1;
        }
    }
    return 0;
}

static inline uint8_t role_of(const CallSitesObject *self, TSNode node) {
    TSSymbol s = ts_node_symbol(node);
    return s < self->symbol_count ? self->role[s] : 0;
}

typedef struct {
    const CallSitesObject *self;
    const char *source;
    Py_ssize_t source_len;
    PyObject *seen, *chain;
    PyObject *like; /* a Node of the tree: new Nodes are made like it */
} Reading;

/* chain(node) as the language's `chain` answers it: the kept answer for a plain node's
 * text, else `chain` called (on `obj`, or on a Node made for `node` when obj is NULL) */
static PyObject *chain_of(const Reading *rd, TSNode node, PyObject *obj) {
    if (role_of(rd->self, node) & ROLE_PLAIN) {
        uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
        if (start <= end && (Py_ssize_t)end <= rd->source_len) {
            PyObject *key = PyBytes_FromStringAndSize(rd->source + start, end - start);
            if (key == NULL) return NULL;
            PyObject *kept = PyDict_GetItemWithError(rd->seen, key); /* borrowed */
            Py_DECREF(key);
            if (kept != NULL && kept != Py_None) return Py_NewRef(kept);
            if (kept == NULL && PyErr_Occurred()) return NULL;
        }
    }
    if (obj != NULL) return PyObject_CallOneArg(rd->chain, obj);
    PyObject *made = new_node(rd->like, node);
    if (made == NULL) return NULL;
    PyObject *out = PyObject_CallOneArg(rd->chain, made);
    Py_DECREF(made);
    return out;
}

/* ((index, chain), ...) of the plain arguments of the list `list` whose chain is not empty */
static PyObject *plain_arguments(const Reading *rd, TSNode list) {
    TSNode stack_buf[64], *children = stack_buf;
    uint32_t n = runner_children(list, stack_buf, 64);
    if (n > 64) {
        children = PyMem_Malloc(n * sizeof(TSNode));
        if (children == NULL) return PyErr_NoMemory();
        runner_children(list, children, n);
    }
    PyObject *items[64], **found = items, *out = NULL;
    if (n > 64) {
        found = PyMem_Malloc(n * sizeof(PyObject *));
        if (found == NULL) {
            PyErr_NoMemory();
            goto done_children;
        }
    }
    Py_ssize_t count = 0, named = 0;
    for (uint32_t i = 0; i < n; i++) {
        TSNode child = children[i];
        if (!ts_node_is_named(child)) continue;
        Py_ssize_t index = named++;
        if (!(role_of(rd->self, child) & ROLE_PLAIN)) continue;
        PyObject *c = chain_of(rd, child, NULL);
        if (c == NULL) goto fail;
        int truth = PyObject_IsTrue(c);
        if (truth <= 0) {
            Py_DECREF(c);
            if (truth < 0) goto fail;
            continue;
        }
        PyObject *pair = PyTuple_New(2);
        PyObject *at = PyLong_FromSsize_t(index);
        if (pair == NULL || at == NULL) {
            Py_XDECREF(pair);
            Py_XDECREF(at);
            Py_DECREF(c);
            goto fail;
        }
        PyTuple_SET_ITEM(pair, 0, at);
        PyTuple_SET_ITEM(pair, 1, c);
        found[count++] = pair;
    }
    out = PyTuple_New(count);
    if (out != NULL) {
        for (Py_ssize_t i = 0; i < count; i++) PyTuple_SET_ITEM(out, i, found[i]);
        count = 0;
    }
fail:
    for (Py_ssize_t i = 0; i < count; i++) Py_DECREF(found[i]);
    if (found != items) PyMem_Free(found);
done_children:
    if (children != stack_buf) PyMem_Free(children);
    return out;
}

/* (start_byte, line, chain, arguments) of one site: (node, callee[, arguments]) */
static PyObject *read_site(Reading *rd, PyObject *site) {
    if (!PyTuple_Check(site) || PyTuple_GET_SIZE(site) < 2 || PyTuple_GET_SIZE(site) > 3) {
        PyErr_SetString(PyExc_TypeError, "a site is (node, callee) or (node, callee, arguments)");
        return NULL;
    }
    PyObject *node_obj = PyTuple_GET_ITEM(site, 0), *callee_obj = PyTuple_GET_ITEM(site, 1);
    TSNode node, callee, list = {0};
    if (node_from_object(node_obj, &node) < 0 || node_from_object(callee_obj, &callee) < 0)
        return NULL;
    rd->like = node_obj;
    if (PyTuple_GET_SIZE(site) == 3 && PyTuple_GET_ITEM(site, 2) != Py_None) {
        if (node_from_object(PyTuple_GET_ITEM(site, 2), &list) < 0) return NULL;
    } else if (PyTuple_GET_SIZE(site) == 2 && rd->self->arguments_field) {
        list = ts_node_child_by_field_id(node, rd->self->arguments_field);
    }
    PyObject *c = chain_of(rd, callee, callee_obj);
    if (c == NULL) return NULL;
    PyObject *arguments;
    if (!ts_node_is_null(list) && (role_of(rd->self, list) & ROLE_ARGUMENTS)) {
        arguments = plain_arguments(rd, list);
    } else {
        arguments = PyTuple_New(0);
    }
    if (arguments == NULL) {
        Py_DECREF(c);
        return NULL;
    }
    return Py_BuildValue("(IINN)", ts_node_start_byte(node), ts_node_start_point(node).row + 1,
                         c, arguments);
}

static PyObject *call_sites_read(CallSitesObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (check_argc("read", argc, 4) < 0) return NULL;
    PyObject *sites = argv[0], *source = argv[1], *seen = argv[2], *chain = argv[3];
    if (!PyList_Check(sites) || !PyBytes_Check(source) || !PyDict_Check(seen)) {
        PyErr_SetString(PyExc_TypeError, "read(sites: list, source: bytes, seen: dict, chain)");
        return NULL;
    }
    Reading rd = {self, PyBytes_AS_STRING(source), PyBytes_GET_SIZE(source), seen, chain, NULL};
    Py_ssize_t n = PyList_GET_SIZE(sites);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* (the list may not change under `chain`: a new reference held meanwhile) */
        PyObject *site = Py_NewRef(PyList_GET_ITEM(sites, i));
        PyObject *item = read_site(&rd, site);
        Py_DECREF(site);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static PyMethodDef call_sites_methods[] = {
    {"read", (PyCFunction)(void (*)(void))call_sites_read, METH_FASTCALL,
     PyDoc_STR("read(sites, source, seen, chain) -> [(start_byte, line, chain, arguments)]")},
    {NULL, NULL, 0, NULL},
};

PyTypeObject CallSitesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "codeimpact.native._syntax.CallSites",
    .tp_basicsize = sizeof(CallSitesObject),
    .tp_dealloc = (destructor)call_sites_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("CallSites(language, plain_types, arguments_type, arguments_field=None): "
                        "call sites read in C (native/call_sites.c)"),
    .tp_methods = call_sites_methods,
    .tp_init = (initproc)call_sites_init,
    .tp_new = PyType_GenericNew,
};
