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
 *
 * facts(sites, source, seen, chain, scopes, out, fact_type, kind, *, decorators, decorated,
 * hook, literals) makes each site's call fact (scope, chain, line, kind, arguments, ()) and
 * appends it to `out`, by the rules the language gives as data at construction: a callee of
 * a `hooked_types` type, or a plain name (`name_types`) among `hooked_names`, goes to
 * `hook(node, callee, start, line)` first, which says whether it is no call site (JS's
 * `import(...)`, `require("m")`: an import); with `literals`, a callee that is a function
 * literal (`literal_types`, seen through `wrapper_types`) is none (an immediately invoked
 * function: its body is in scope already); the scope is `decorators[start]` (then the kind
 * is `decorated`) or the innermost of `scopes` (the language's NestedScopes items: (start,
 * end, local, parent) sorted by start) holding the site, else ""; a callee without a chain
 * is "?." + its member (`member_types`' `member_field`) or "?", counted as unresolved. For
 * JS/TS that was Python per site (extract.py call_site, _add_call: 12K of Django's 27K JS
 * matches), which stays the reference the tests compare with.
 */

#include "runner.h"

/* what a node type is to the reading (data given at construction) */
enum {
    ROLE_PLAIN = 1,     /* its text is read as a chain */
    ROLE_ARGUMENTS = 2, /* an argument list */
    ROLE_LITERAL = 4,   /* a function literal: calling one is no call site (its body is in scope) */
    ROLE_WRAPPER = 8,   /* wraps its first named child (parentheses) */
    ROLE_MEMBER = 16,   /* a member access: a site whose callee has no chain keeps its member */
    ROLE_HOOKED = 32,   /* a callee of this type goes to the hook (`import(...)`) */
    ROLE_NAME = 64,     /* a plain name: one of the hooked names goes to the hook (`require`) */
};

typedef struct {
    PyObject_HEAD
    const TSLanguage *language;
    uint32_t symbol_count;
    uint8_t *role; /* by symbol (ts_node_symbol: public, aliases included) */
    TSFieldId arguments_field; /* 0: none */
    TSFieldId member_field;    /* a member access's member (0: none) */
    TSFieldId callee_field;    /* the callee of a site given as its node alone (0: none) */
    PyObject *hooked_names;    /* frozenset of str: the callee names the hook reads */
} CallSitesObject;

static void call_sites_dealloc(CallSitesObject *self) {
    PyMem_Free(self->role);
    Py_XDECREF(self->hooked_names);
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

/* the field named `field` (None: 0), or -1 with ValueError when the language lacks it */
static int field_id(const CallSitesObject *self, PyObject *field, TSFieldId *out) {
    *out = 0;
    if (field == Py_None) return 0;
    Py_ssize_t n;
    const char *text = PyUnicode_AsUTF8AndSize(field, &n);
    if (text == NULL) return -1;
    *out = ts_language_field_id_for_name(self->language, text, (uint32_t)n);
    if (*out == 0) {
        PyErr_Format(PyExc_ValueError, "the language has no field %R", field);
        return -1;
    }
    return 0;
}

/* role |= bit for every node type named in the tuple `names` */
static int mark_all(CallSitesObject *self, PyObject *names, const char *what, uint8_t bit) {
    if (!PyTuple_Check(names)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of str", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            PyErr_Format(PyExc_TypeError, "%s must be a tuple of str", what);
            return -1;
        }
        if (mark_symbols(self, name, bit) < 0) return -1;
    }
    return 0;
}

static int call_sites_init(CallSitesObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"language",      "plain_types",   "arguments_type",
                               "arguments_field", "literal_types", "wrapper_types",
                               "member_types",  "member_field",  "hooked_types",
                               "name_types",    "hooked_names",  "callee_field", NULL};
    PyObject *language, *plain, *arguments_type, *field = Py_None, *member_field = Py_None;
    PyObject *callee_field = Py_None;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL) return -1;
    PyObject *literal = empty, *wrapper = empty, *member = empty, *hooked = empty;
    PyObject *name_types = empty, *hooked_names = empty;
    int ok = PyArg_ParseTupleAndKeywords(
        args, kwargs, "OO!U|O$OOOOOOOO:CallSites", keywords, &language, &PyTuple_Type, &plain,
        &arguments_type, &field, &literal, &wrapper, &member, &member_field, &hooked,
        &name_types, &hooked_names, &callee_field);
    int rc = -1;
    if (!ok || language_from_object(language, &self->language) < 0) goto done;
    self->symbol_count = ts_language_symbol_count(self->language);
    PyMem_Free(self->role);
    self->role = PyMem_Calloc(self->symbol_count ? self->symbol_count : 1, 1);
    if (self->role == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (mark_all(self, plain, "plain_types", ROLE_PLAIN) < 0 ||
        mark_symbols(self, arguments_type, ROLE_ARGUMENTS) < 0 ||
        mark_all(self, literal, "literal_types", ROLE_LITERAL) < 0 ||
        mark_all(self, wrapper, "wrapper_types", ROLE_WRAPPER) < 0 ||
        mark_all(self, member, "member_types", ROLE_MEMBER) < 0 ||
        mark_all(self, hooked, "hooked_types", ROLE_HOOKED) < 0 ||
        mark_all(self, name_types, "name_types", ROLE_NAME) < 0 ||
        field_id(self, field, &self->arguments_field) < 0 ||
        field_id(self, member_field, &self->member_field) < 0 ||
        field_id(self, callee_field, &self->callee_field) < 0)
        goto done;
    Py_XSETREF(self->hooked_names, PyFrozenSet_New(hooked_names));
    rc = self->hooked_names == NULL ? -1 : 0;
done:
    Py_DECREF(empty);
    return rc;
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

/* One site (node, callee[, arguments]) read: its nodes, the callee's chain and the plain
 * arguments ((index, chain), ...), both new references. */
typedef struct {
    PyObject *node_obj, *callee_obj; /* borrowed from the site */
    TSNode node, callee;
    PyObject *chain, *arguments;
} Site;

/* 0, or 1 when a site given as its node alone is none (its arguments are no argument list:
 * a tagged template), -1 on error */
static int read_parts(Reading *rd, PyObject *site, Site *out) {
    TSNode list = {0};
    if (!PyTuple_Check(site) && rd->self->callee_field && rd->self->arguments_field) {
        /* the construct node alone: its callee and arguments are its fields */
        out->node_obj = site;
        out->callee_obj = NULL; /* (a Node made for it only when the hook or `chain` needs one) */
        if (node_from_object(site, &out->node) < 0) return -1;
        out->callee = runner_field(out->node, rd->self->callee_field);
        list = runner_field(out->node, rd->self->arguments_field);
        if (ts_node_is_null(out->callee) || ts_node_is_null(list) ||
            !(role_of(rd->self, list) & ROLE_ARGUMENTS))
            return 1;
    } else {
        if (!PyTuple_Check(site) || PyTuple_GET_SIZE(site) < 2 || PyTuple_GET_SIZE(site) > 3) {
            PyErr_SetString(PyExc_TypeError,
                            "a site is (node, callee), (node, callee, arguments) or, with a "
                            "callee field, its node");
            return -1;
        }
        out->node_obj = PyTuple_GET_ITEM(site, 0);
        out->callee_obj = PyTuple_GET_ITEM(site, 1);
        if (node_from_object(out->node_obj, &out->node) < 0 ||
            node_from_object(out->callee_obj, &out->callee) < 0)
            return -1;
        if (PyTuple_GET_SIZE(site) == 3 && PyTuple_GET_ITEM(site, 2) != Py_None) {
            if (node_from_object(PyTuple_GET_ITEM(site, 2), &list) < 0) return -1;
        } else if (PyTuple_GET_SIZE(site) == 2 && rd->self->arguments_field) {
            list = runner_field(out->node, rd->self->arguments_field);
        }
    }
    rd->like = out->node_obj;
    out->chain = chain_of(rd, out->callee, out->callee_obj);
    if (out->chain == NULL) return -1;
    if (!ts_node_is_null(list) && (role_of(rd->self, list) & ROLE_ARGUMENTS)) {
        out->arguments = plain_arguments(rd, list);
    } else {
        out->arguments = PyTuple_New(0);
    }
    if (out->arguments == NULL) {
        Py_CLEAR(out->chain);
        return -1;
    }
    return 0;
}

/* (start_byte, line, chain, arguments) of one site: (node, callee[, arguments]) */
static PyObject *read_site(Reading *rd, PyObject *site) {
    Site one;
    int got = read_parts(rd, site, &one);
    if (got < 0) return NULL;
    if (got > 0) Py_RETURN_NONE;
    return Py_BuildValue("(IINN)", ts_node_start_byte(one.node),
                         ts_node_start_point(one.node).row + 1, one.chain, one.arguments);
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

/* ---- the call facts of the sites ---- */

/* The scopes: intervals (start, end, local, index of the enclosing one) sorted by start, as
 * the language's NestedScopes holds them; `at` is its lookup (one bisect, then outwards). */
typedef struct {
    Py_ssize_t n;
    long long *start, *end;
    Py_ssize_t *parent;
    PyObject **local; /* borrowed from the items (held by the caller's list) */
} Scopes;

static int scopes_from(PyObject *items, Scopes *sc) {
    sc->n = PyList_GET_SIZE(items);
    size_t n = sc->n ? (size_t)sc->n : 1;
    sc->start = PyMem_Malloc(n * 2 * sizeof(long long));
    sc->parent = PyMem_Malloc(n * sizeof(Py_ssize_t));
    sc->local = PyMem_Malloc(n * sizeof(PyObject *));
    if (sc->start == NULL || sc->parent == NULL || sc->local == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    sc->end = sc->start + n;
    for (Py_ssize_t i = 0; i < sc->n; i++) {
        PyObject *iv = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(iv) || PyTuple_GET_SIZE(iv) != 4) {
            PyErr_SetString(PyExc_TypeError, "a scope is (start, end, local, parent)");
            return -1;
        }
        sc->start[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(iv, 0));
        sc->end[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(iv, 1));
        sc->parent[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(iv, 3));
        sc->local[i] = PyTuple_GET_ITEM(iv, 2);
        if (PyErr_Occurred()) return -1;
        if (sc->parent[i] >= i) {
            PyErr_SetString(PyExc_ValueError, "a scope's parent comes after it");
            return -1;
        }
    }
    return 0;
}

static void scopes_free(Scopes *sc) {
    PyMem_Free(sc->start);
    PyMem_Free(sc->parent);
    PyMem_Free(sc->local);
}

/* the innermost scope holding `pos` (borrowed), or NULL: none (the module) */
static PyObject *scope_at_pos(const Scopes *sc, long long pos) {
    Py_ssize_t lo = 0, hi = sc->n;
    while (lo < hi) { /* bisect_right(starts, pos) */
        Py_ssize_t mid = (lo + hi) / 2;
        if (pos < sc->start[mid]) hi = mid;
        else lo = mid + 1;
    }
    for (Py_ssize_t i = lo - 1; i >= 0; i = sc->parent[i]) {
        if (sc->start[i] <= pos && pos < sc->end[i]) return sc->local[i];
    }
    return NULL;
}

typedef struct {
    PyObject *out, *empty, *empty_tuple, *kind, *decorated, *decorators, *hook;
    PyTypeObject *fact_type;
    bool literals; /* a call of a function literal is no site */
} Making;

/* "?." + the member of a callee without a chain (`f().x()` of a callee the chain rules do
 * not read), else "?": the site is counted as unresolved, never guessed */
static PyObject *unknown_callee(const Reading *rd, TSNode callee) {
    TSNode member = {0};
    if ((role_of(rd->self, callee) & ROLE_MEMBER) && rd->self->member_field)
        member = runner_field(callee, rd->self->member_field);
    if (ts_node_is_null(member)) return PyUnicode_FromStringAndSize("?", 1);
    uint32_t start = ts_node_start_byte(member), end = ts_node_end_byte(member);
    if ((Py_ssize_t)end > rd->source_len) end = (uint32_t)rd->source_len;
    if (start > end) start = end;
    PyObject *text = PyUnicode_DecodeUTF8(rd->source + start, end - start, "replace");
    if (text == NULL) return NULL;
    PyObject *out = PyUnicode_FromFormat("?.%U", text);
    Py_DECREF(text);
    return out;
}

/* whether the site goes to the hook: a callee of a hooked type, or a plain name that is one
 * of the hooked names */
static int hooked(const Reading *rd, const Site *one) {
    uint8_t role = role_of(rd->self, one->callee);
    if (role & ROLE_HOOKED) return 1;
    if (!(role & ROLE_NAME) || !PyUnicode_Check(one->chain)) return 0;
    return PySet_Contains(rd->self->hooked_names, one->chain);
}

static bool calls_a_literal(const Reading *rd, TSNode callee) {
    TSNode inner = callee;
    while ((role_of(rd->self, inner) & ROLE_WRAPPER) && ts_node_named_child_count(inner))
        inner = ts_node_named_child(inner, 0);
    return (role_of(rd->self, inner) & ROLE_LITERAL) != 0;
}

/* the CallFact of one site, appended to mk->out; 0 also when the site makes none */
static int site_fact(Reading *rd, const Scopes *sc, const Making *mk, PyObject *site) {
    Site one;
    int got = read_parts(rd, site, &one);
    if (got != 0) return got < 0 ? -1 : 0;
    PyObject *start = PyLong_FromUnsignedLong(ts_node_start_byte(one.node));
    PyObject *line = PyLong_FromUnsignedLong(ts_node_start_point(one.node).row + 1);
    PyObject *scope = NULL, *kind = mk->kind;
    int rc = -1;
    if (start == NULL || line == NULL) goto done;
    if (mk->hook != Py_None) {
        int h = hooked(rd, &one);
        if (h < 0) goto done;
        if (h) {
            PyObject *callee_obj =
                one.callee_obj ? Py_NewRef(one.callee_obj) : new_node(one.node_obj, one.callee);
            if (callee_obj == NULL) goto done;
            PyObject *args[4] = {one.node_obj, callee_obj, start, line};
            PyObject *r = PyObject_Vectorcall(mk->hook, args, 4, NULL);
            Py_DECREF(callee_obj);
            int taken = r == NULL ? -1 : PyObject_IsTrue(r);
            Py_XDECREF(r);
            if (taken != 0) {
                rc = taken < 0 ? -1 : 0;
                goto done;
            }
        }
    }
    if (mk->literals && calls_a_literal(rd, one.callee)) {
        rc = 0;
        goto done;
    }
    if (mk->decorators != Py_None && PyDict_GET_SIZE(mk->decorators)) {
        scope = PyDict_GetItemWithError(mk->decorators, start); /* borrowed */
        if (scope == NULL && PyErr_Occurred()) goto done;
        if (scope != NULL && scope != Py_None) kind = mk->decorated;
        else scope = NULL;
    }
    if (scope == NULL) {
        scope = scope_at_pos(sc, (long long)ts_node_start_byte(one.node));
        if (scope == NULL) scope = mk->empty;
    }
    if (one.chain == Py_None) {
        Py_SETREF(one.chain, unknown_callee(rd, one.callee));
        if (one.chain == NULL) goto done;
    }
    PyObject *fact = mk->fact_type->tp_alloc(mk->fact_type, 6);
    if (fact == NULL) goto done;
    PyObject *items[6] = {Py_NewRef(scope), one.chain, Py_NewRef(line), Py_NewRef(kind),
                          one.arguments, Py_NewRef(mk->empty_tuple)};
    one.chain = one.arguments = NULL;
    for (int i = 0; i < 6; i++) PyTuple_SET_ITEM(fact, i, items[i]);
    rc = PyList_Append(mk->out, fact);
    Py_DECREF(fact);
done:
    Py_XDECREF(one.chain);
    Py_XDECREF(one.arguments);
    Py_XDECREF(start);
    Py_XDECREF(line);
    return rc;
}

typedef struct {
    uint32_t key;
    Py_ssize_t index;
} Order;

static int order_cmp(const void *a, const void *b) {
    const Order *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sites given as their nodes alone are taken in the order of their argument lists' starts:
 * a pattern that captures the arguments completes as the walk (or query.c's cursor) enters
 * them, so that is the order of the matches the reference reads (`f(x)(y)`: the inner call
 * first, though the outer one starts first). *order stays NULL when a site is a tuple (the
 * order given) or there is one site at most. */
static int site_order(const CallSitesObject *self, PyObject *sites, Order **order) {
    Py_ssize_t n = PyList_GET_SIZE(sites);
    if (n < 2 || !self->callee_field || !self->arguments_field) return 0;
    Order *o = PyMem_Malloc((size_t)n * sizeof(Order));
    if (o == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *site = PyList_GET_ITEM(sites, i);
        TSNode node;
        if (PyTuple_Check(site)) {
            PyMem_Free(o);
            return 0;
        }
        if (node_from_object(site, &node) < 0) {
            PyMem_Free(o);
            return -1;
        }
        TSNode list = runner_field(node, self->arguments_field);
        o[i] = (Order){ts_node_is_null(list) ? UINT32_MAX : ts_node_start_byte(list), i};
    }
    qsort(o, (size_t)n, sizeof(Order), order_cmp);
    *order = o;
    return 0;
}

static PyObject *call_sites_facts(CallSitesObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"sites", "source", "seen",       "chain",     "scopes",
                               "out",   "fact_type", "kind",    "decorators", "decorated",
                               "hook",  "literals",  NULL};
    PyObject *sites, *source, *seen, *chain, *items, *out, *fact_type, *kind;
    PyObject *decorators = Py_None, *decorated = Py_None, *hook = Py_None;
    int literals = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!OO!O!O!U|$OOOp:facts", keywords,
                                     &PyList_Type, &sites, &PyBytes_Type, &source, &PyDict_Type,
                                     &seen, &chain, &PyList_Type, &items, &PyList_Type, &out,
                                     &PyType_Type, &fact_type, &kind, &decorators, &decorated,
                                     &hook, &literals))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)fact_type, &PyTuple_Type) ||
        (decorators != Py_None && !PyDict_Check(decorators)) ||
        (decorators != Py_None && !PyUnicode_Check(decorated))) {
        PyErr_SetString(PyExc_TypeError,
                        "facts: fact_type a tuple type, decorators a dict with a decorated kind");
        return NULL;
    }
    Reading rd = {self, PyBytes_AS_STRING(source), PyBytes_GET_SIZE(source), seen, chain, NULL};
    Making mk = {out, NULL, NULL, kind, decorated, decorators, hook, (PyTypeObject *)fact_type,
                 literals != 0};
    Scopes sc = {0};
    Order *order = NULL;
    PyObject *result = NULL;
    /* (the lists may not change under the hooks: new references held meanwhile) */
    Py_INCREF(sites);
    Py_INCREF(items);
    mk.empty = PyUnicode_FromStringAndSize("", 0);
    mk.empty_tuple = PyTuple_New(0);
    if (mk.empty == NULL || mk.empty_tuple == NULL || scopes_from(items, &sc) < 0 ||
        site_order(self, sites, &order) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(sites); i++) {
        PyObject *site = Py_NewRef(PyList_GET_ITEM(sites, order ? order[i].index : i));
        int rc = site_fact(&rd, &sc, &mk, site);
        Py_DECREF(site);
        if (rc < 0) goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(order);
    scopes_free(&sc);
    Py_XDECREF(mk.empty);
    Py_XDECREF(mk.empty_tuple);
    Py_DECREF(sites);
    Py_DECREF(items);
    return result;
}

static PyMethodDef call_sites_methods[] = {
    {"read", (PyCFunction)(void (*)(void))call_sites_read, METH_FASTCALL,
     PyDoc_STR("read(sites, source, seen, chain) -> [(start_byte, line, chain, arguments)]")},
    {"facts", (PyCFunction)(void (*)(void))call_sites_facts, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("facts(sites, source, seen, chain, scopes, out, fact_type, kind, *,\n"
               "      decorators=None, decorated=None, hook=None, literals=False)\n--\n\n"
               "The call fact of every site appended to `out`: see the file's comment.")},
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
