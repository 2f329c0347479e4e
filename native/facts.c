/*
 * FactEngine: the facts of a file from a query in the shared capture vocabulary, made in C.
 *
 * FactEngine(language, source, roles, fields, options, hooks, types) (facts_type.c) compiles
 * `source` (a query whose captures are all names of native/vocabulary.py, one construct per
 * pattern) with the runner (runner.c) and maps the language's node types to the
 * vocabulary's node roles and its grammar fields to the field roles. engine.facts(node,
 * source, facts, module_vars) runs the query over the tree and appends to `facts`' lists:
 *
 * 1. the arguments of every call (facts_bind.c: plain names and members by position or
 *    keyword, and the literals that name something), first, so that the chain hooks see the texts in the order the extraction
 *    this engine replaced asked for them (the blobs depend on what their caches hold);
 * 2. definitions (facts_defs.c): symbols with their local names (`A.f`, `f#2`), kinds,
 *    spans, signatures, parameters and decorators; heritage of classes; declared return
 *    types of functions; the scope intervals (bodies, and whole definitions);
 * 3. decorators: each decorator's interval and scope (the definition it decorates), and a
 *    "decorator" call for each that is not a call itself;
 * 4. the local scopes hook's object, from the scope.* and binding.comprehension matches;
 * 5. the calls in match order (scope, callee chain, arguments), then the other matches in
 *    match order: imports, assignments (bindings, references, module variables; then, for those that
 *    store into or unpack a container, the items' facts: facts_items.c), returns, member
 *    reads, `with` items, loop and comprehension variables and stores into members
 *    (facts_flow.c), and any other construct through the `other` hook with Node objects and
 *    its scope.
 *
 * The strings are the hooks' own (the chain hooks are the language's caches, so equal chains
 * are shared objects, which marshal writes once) and the kinds are interned, as the
 * reference code's constants are: the facts are the query path's object for object, and
 * their marshalled blobs byte for byte (tests/test_native_facts.py).
 */

#include "facts.h"

/* by construct: a definition (definition.*), a local scope (scope.*), or neither */
enum { FAMILY_OTHER, FAMILY_DEFINITION, FAMILY_SCOPE };
static uint8_t FAMILY[V_CONSTRUCT_COUNT];

PyObject *S_EMPTY, *S_CALL, *S_DECORATOR, *S_VARIABLE, *S_VALUE, *S_STAR, *S_UNKNOWN, *S_READ;

static const char *const LIST_NAMES[TYPE_COUNT] = {
    "symbols", "imports", "calls", "heritage", "references", "bindings", "returns",
};
/* the same names as interned strs, made once: PyObject_GetAttrString made and interned
   one per list per file (~1,400 instructions each) */
static PyObject *LIST_ATTRS[TYPE_COUNT];

int facts_init(void) {
    for (int v = 0; v < V_CONSTRUCT_COUNT; v++) {
        FAMILY[v] = strncmp(VOCABULARY[v], "definition.", 11) == 0 ? FAMILY_DEFINITION
                    : strncmp(VOCABULARY[v], "scope.", 6) == 0    ? FAMILY_SCOPE
                                                                  : FAMILY_OTHER;
    }
    S_EMPTY = PyUnicode_FromStringAndSize("", 0);
    S_CALL = PyUnicode_InternFromString("call");
    S_DECORATOR = PyUnicode_InternFromString("decorator");
    S_VARIABLE = PyUnicode_InternFromString("variable");
    S_VALUE = PyUnicode_InternFromString("value");
    S_STAR = PyUnicode_FromStringAndSize("*", 1);
    S_UNKNOWN = PyUnicode_FromStringAndSize("?", 1);
    S_READ = PyUnicode_InternFromString("read");
    for (int l = 0; l < TYPE_COUNT; l++) {
        LIST_ATTRS[l] = PyUnicode_InternFromString(LIST_NAMES[l]);
        if (LIST_ATTRS[l] == NULL) return -1;
    }
    return S_EMPTY && S_CALL && S_DECORATOR && S_VARIABLE && S_VALUE && S_STAR && S_UNKNOWN &&
                   S_READ
               ? 0
               : -1;
}

/* ------------------------------------------------------------------------- */
/* helpers the rules share                                                   */

/* source[node.start_byte : node.end_byte] as Python slices it */
void span(const Run *run, TSNode node, const char **ptr, Py_ssize_t *len) {
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(node);
    Py_ssize_t end = (Py_ssize_t)ts_node_end_byte(node);
    if (start > run->src_len) start = run->src_len;
    if (end > run->src_len) end = run->src_len;
    if (end < start) end = start;
    *ptr = run->src + start;
    *len = end - start;
}

PyObject *decoded(const Run *run, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(run, node, &ptr, &len);
    return PyUnicode_DecodeUTF8(ptr, len, NULL);
}

PyObject *hook_on_text(const Run *run, int hook, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(run, node, &ptr, &len);
    if (hook == H_CHAIN && run->e->native_chain) return chain_of_span(ptr, len);
    if (hook == H_CALLEE_CHAIN && run->e->native_callee_chain)
        return callee_chain_of_span(ptr, len);
    PyObject *text = PyBytes_FromStringAndSize(ptr, len);
    if (text == NULL) return NULL;
    PyObject *out = call_text_hook(run->e, hook, text);
    Py_DECREF(text);
    return out;
}

PyObject *call_text_hook(const FactEngine *e, int hook, PyObject *text) {
    if (hook == H_CHAIN && e->native_chain) return chain_of_bytes(text);
    if (hook == H_CALLEE_CHAIN && e->native_callee_chain) return callee_chain_of_bytes(text);
    return PyObject_CallOneArg(e->hooks[hook], text);
}

PyObject *line_of(TSNode node) {
    return PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(node).row + 1);
}

int usable(PyObject *chain) {
    if (chain == NULL) return -1;
    return chain != Py_None && PyUnicode_Check(chain) && PyUnicode_GET_LENGTH(chain) > 0;
}

int append_fact(Run *run, int type, Py_ssize_t n, PyObject **items) {
    PyTypeObject *fact_type = run->e->types[type];
    PyObject *fact = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL) goto error;
    }
    /* what tuple.__new__(fact_type, items) does, without the tuple of items */
    fact = fact_type->tp_alloc(fact_type, n);
    if (fact == NULL) goto error;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(fact, i, items[i]);
    int rc = PyList_Append(run->lists[type], fact);
    Py_DECREF(fact);
    return rc;
error:
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(items[i]);
    return -1;
}

PyObject *new_pair(PyObject *key, PyObject *value) {
    if (key == NULL || value == NULL) {
        Py_XDECREF(key);
        Py_XDECREF(value);
        return NULL;
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(key);
        Py_DECREF(value);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, key);
    PyTuple_SET_ITEM(pair, 1, value);
    return pair;
}

int append_pair(PyObject *out, PyObject *key, PyObject *value) {
    PyObject *pair = new_pair(key, value);
    if (pair == NULL) return -1;
    int rc = PyList_Append(out, pair);
    Py_DECREF(pair);
    return rc;
}

TSNode *children_of(TSNode node, TSNode room[ROOM], uint32_t *count) {
    *count = runner_children(node, room, ROOM);
    if (*count <= ROOM) return room;
    TSNode *children = PyMem_Malloc(*count * sizeof(TSNode));
    if (children == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    runner_children(node, children, *count);
    return children;
}

void free_children(TSNode *children, TSNode room[ROOM]) {
    if (children != room) PyMem_Free(children);
}

TSNode first_named(TSNode node) {
    return ts_node_named_child_count(node) ? ts_node_named_child(node, 0) : (TSNode){0};
}

bool starts_with_str(PyObject *s, PyObject *prefix) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(prefix);
    return n > 0 && PyUnicode_Tailmatch(s, prefix, 0, n, -1) == 1;
}

PyObject *match_dict(const Run *run, size_t match) {
    const RunnerMatch *m = &run->m.matches[match];
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    for (uint16_t c = 0; c < m->capture_count; c++) {
        const RunnerCapture *cap = &run->m.caps[m->capture_start + c];
        PyObject *node = new_node(run->like, cap->node);
        if (node == NULL ||
            PyDict_SetItem(out, PyTuple_GET_ITEM(run->e->capture_names, cap->id), node) < 0) {
            Py_XDECREF(node);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(node);
    }
    return out;
}

/* node.parent, looked for down from the body of the innermost definition that holds the
 * node rather than from the root as ts_node_parent does: the same node (ts_node_parent
 * descends from the root, at each level into the one child whose span holds the node's,
 * and a non-empty node's span is held by one child per level, so the descent passes
 * through that body), without the walk over the earlier statements of a long file (the
 * parent lookups of the member reads and `with` items cost more than their rules did). An
 * empty node, the body itself or a node outside of every body: ts_node_parent. */
TSNode parent_of(const Run *run, TSNode node) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    Py_ssize_t i = start < end ? scope_index(run->body_iv, run->n_defs, start) : -1;
    while (i >= 0 && end > (uint32_t)run->body_iv[i].end) i = run->body_iv[i].parent;
    if (i < 0 || ts_node_eq(run->defs[i].body, node)) return ts_node_parent(node);
    TSNode parent = run->defs[i].body;
    for (;;) {
        TSNode next = ts_node_child_with_descendant(parent, node);
        if (ts_node_is_null(next) || next.id == node.id) return parent;
        parent = next;
    }
}

/* ------------------------------------------------------------------------- */
/* a run                                                                     */

static inline uint16_t construct_of(const Run *run, size_t match) {
    return run->e->construct_of[run->m.matches[match].pattern];
}

/* the match arrays a FactEngine keeps between runs: up to this many entries each (a file
   of ~1 MB of Python source has fewer) */
enum { KEPT_MATCHES = 1 << 16 };

static inline bool is_definition(uint16_t v) { return FAMILY[v] == FAMILY_DEFINITION; }

/* what the local scopes hook is made of */
static inline bool is_local_scope(uint16_t v) {
    return v == V_BINDING_COMPREHENSION || FAMILY[v] == FAMILY_SCOPE;
}

/* the construct node of a match: the capture whose name is its construct */
static TSNode construct_node(const Run *run, size_t match) {
    return part_of(run, match, construct_of(run, match));
}

/* ---- the names the file's definitions and imports bind (known_head) ---- */

struct Known {
    const char *ptr;
    Py_ssize_t len;
};

static int known_order(const void *a, const void *b) {
    const struct Known *x = a, *y = b;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return memcmp(x->ptr, y->ptr, (size_t)x->len);
}

/* a span's head: up to its first '.' (`mod` of `mod.f`) */
static void head_of(const char *ptr, Py_ssize_t *len) {
    const char *dot = memchr(ptr, '.', (size_t)*len);
    if (dot != NULL) *len = dot - ptr;
}

static void known_add(Run *run, TSNode node, bool head) {
    struct Known k;
    span(run, node, &k.ptr, &k.len);
    if (head) head_of(k.ptr, &k.len);
    run->known[run->n_known++] = k;
}

/* the definitions' names, and the names each import binds (`import a.b` a, an alias, `from m
 * import x` x; a wildcard: any name): items.py _Known */
static void known_names(Run *run) {
    size_t cap = (size_t)run->n_defs;
    for (size_t i = 0; i < run->n_others; i++) {
        uint16_t v = construct_of(run, run->others[i]);
        if (v == V_IMPORT || v == V_IMPORT_FROM)
            cap += ts_node_named_child_count(construct_node(run, run->others[i]));
    }
    run->known = PyMem_Malloc((cap ? cap : 1) * sizeof(struct Known));
    run->known_state = 1;
    if (run->known == NULL) { /* (no memory: every name passes, as a wildcard's) */
        run->known_state = 2;
        return;
    }
    for (Py_ssize_t i = 0; i < run->n_defs; i++) known_add(run, run->defs[i].name, false);
    TSFieldId f_name = run->e->fields[F_NAME];
    for (size_t i = 0; i < run->n_others && run->known_state == 1; i++) {
        uint16_t v = construct_of(run, run->others[i]);
        if (v != V_IMPORT && v != V_IMPORT_FROM) continue;
        bool any_name = false, wildcard = false;
        TSTreeCursor cursor = ts_tree_cursor_new(construct_node(run, run->others[i]));
        if (ts_tree_cursor_goto_first_child(&cursor)) {
            do {
                TSNode child = ts_tree_cursor_current_node(&cursor);
                if (f_name && ts_tree_cursor_current_field_id(&cursor) == f_name) {
                    any_name = true;
                    if (role_of(run, child) == R_IMPORT_ALIASED) {
                        TSNode alias = field_of(run, child, F_ALIAS);
                        if (!ts_node_is_null(alias)) known_add(run, alias, false);
                    } else {
                        known_add(run, child, v == V_IMPORT);
                    }
                } else if (role_of(run, child) == R_IMPORT_WILDCARD) {
                    wildcard = true;
                }
            } while (ts_tree_cursor_goto_next_sibling(&cursor));
        }
        ts_tree_cursor_delete(&cursor);
        if (v == V_IMPORT_FROM && !any_name && wildcard) run->known_state = 2;
    }
    qsort(run->known, (size_t)run->n_known, sizeof(struct Known), known_order);
}

bool known_head(Run *run, TSNode item) {
    if (run->known_state == 0) known_names(run);
    if (run->known_state == 2) return true;
    struct Known k;
    span(run, item, &k.ptr, &k.len);
    head_of(k.ptr, &k.len);
    return bsearch(&k, run->known, (size_t)run->n_known, sizeof(struct Known), known_order) !=
           NULL;
}

/* the language's local scopes object, from the scope.* and binding.comprehension matches
 * as (construct, {capture: Node}); for none, the engine's (the hook is a function of the
 * matches: its answer for none is asked once) */
static int local_scopes(Run *run, FactEngine *engine) {
    PyObject **none = engine->no_scopes;
    if (run->n_scopes == 0 && none[0] != NULL) {
        run->local_scopes = Py_NewRef(none[0]);
        run->scope_names = Py_NewRef(none[1]);
        run->rename = Py_NewRef(none[2]);
        return 0;
    }
    PyObject *matches = PyList_New(0);
    if (matches == NULL) return -1;
    for (size_t i = 0; i < run->n_scopes; i++) {
        size_t k = run->scopes[i];
        uint16_t v = construct_of(run, k);
        PyObject *caps = match_dict(run, k);
        PyObject *item = caps ? PyTuple_Pack(2, run->e->constructs[v], caps) : NULL;
        Py_XDECREF(caps);
        if (item == NULL || PyList_Append(matches, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(matches);
            return -1;
        }
        Py_DECREF(item);
    }
    run->local_scopes = PyObject_CallOneArg(run->e->hooks[H_LOCAL_SCOPES], matches);
    Py_DECREF(matches);
    if (run->local_scopes == NULL) return -1;
    run->scope_names = PyObject_GetAttrString(run->local_scopes, "names");
    run->rename = run->scope_names ? PyObject_GetAttrString(run->local_scopes, "rename") : NULL;
    if (run->rename == NULL) return -1;
    if (!PyAnySet_Check(run->scope_names)) {
        PyErr_SetString(PyExc_TypeError, "the local scopes' names must be a set");
        return -1;
    }
    if (run->n_scopes == 0) {
        none[0] = Py_NewRef(run->local_scopes);
        none[1] = Py_NewRef(run->scope_names);
        none[2] = Py_NewRef(run->rename);
    }
    return 0;
}

/* a construct without a rule here: the language's `other` hook, with its scope */
static int other(Run *run, size_t k, uint16_t v) {
    TSNode node = construct_node(run, k);
    /* a type in a signature belongs to the definition it is written in */
    const Interval *iv = v == V_REFERENCE_TYPE ? run->full_iv : run->body_iv;
    PyObject *scope = scope_at(iv, run->n_defs, ts_node_start_byte(node));
    PyObject *caps = match_dict(run, k);
    if (caps == NULL) return -1;
    PyObject *args[7] = {run->facts, run->source, run->module_vars, run->local_scopes,
                         run->e->constructs[v], caps, scope};
    PyObject *r = PyObject_Vectorcall(run->e->hooks[H_OTHER], args, 7, NULL);
    Py_DECREF(caps);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

/* Whether `last` (a str) is one of the space-separated words of `words`; -1 on error. */
static int is_word_of(PyObject *words, PyObject *last) {
    Py_ssize_t n, w;
    const char *s = PyUnicode_AsUTF8AndSize(last, &n);
    const char *list = PyUnicode_AsUTF8AndSize(words, &w);
    if (s == NULL || list == NULL) return -1;
    for (Py_ssize_t i = 0; i < w;) {
        Py_ssize_t j = i;
        while (j < w && list[j] != ' ') j++;
        if (j - i == n && memcmp(list + i, s, (size_t)n) == 0) return 1;
        i = j + 1;
    }
    return 0;
}

/* binding.parameter: the `other` hook reads the values a decorator call binds to the
 * parameters of what it decorates, for the callees whose last name the language's
 * parameter_callees option lists (pytest's parametrize, a fixture's params); the rest,
 * most decorator calls, are skipped without Node objects and a call of the hook. The
 * callee's chain is asked for here first, as the hook asks first: the chain cache sees the
 * texts in the same order either way. */
static int parameter_binding(Run *run, size_t k, uint16_t v) {
    PyObject *words = run->e->options[O_PARAMETER_CALLEES];
    TSNode callee = part_of(run, k, V_CALLEE);
    if (PyUnicode_GET_LENGTH(words) == 0 || ts_node_is_null(callee)) return other(run, k, v);
    PyObject *chain = hook_on_text(run, H_CHAIN, callee);
    int named = usable(chain);
    if (named > 0) { /* `chain.rpartition(".")[2] in words` */
        Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
        Py_ssize_t dot = PyUnicode_FindChar(chain, '.', 0, n, -1);
        PyObject *last = dot == -2 ? NULL : PyUnicode_Substring(chain, dot + 1, n);
        named = last == NULL ? -1 : is_word_of(words, last);
        Py_XDECREF(last);
    }
    Py_XDECREF(chain);
    return named > 0 ? other(run, k, v) : named;
}

/* the rules of facts_flow.c (with items, loop and comprehension variables, stores into
 * members), or the `other` hook for a match without the parts they read */
static int flow_binding(Run *run, size_t k, uint16_t v) {
    TSNode node = construct_node(run, k);
    PyObject *scope = scope_at(run->body_iv, run->n_defs, ts_node_start_byte(node));
    if (v == V_BINDING_CONTEXT) {
        TSNode value = part_of(run, k, V_VALUE);
        return ts_node_is_null(value) ? other(run, k, v) : context_binding(run, scope, node, value);
    }
    TSNode lhs = part_of(run, k, V_LEFT);
    if (v == V_ASSIGNMENT_MEMBER)
        return ts_node_is_null(lhs) ? other(run, k, v) : member_store(run, scope, node, lhs);
    TSNode rhs = part_of(run, k, V_RIGHT);
    if (ts_node_is_null(lhs) || ts_node_is_null(rhs)) return other(run, k, v);
    return iteration_binding(run, scope, node, lhs, rhs, v == V_BINDING_COMPREHENSION);
}

/* the matches after the definitions and decorators, in match order: the calls, then the
 * others (each kind of fact has its own list, so only the chain hooks' caches see this
 * order, and it is the one of the extraction before this engine) */
static int the_rest(Run *run) {
    run->callees = PyMem_Malloc((run->n_calls ? run->n_calls : 1) * 2 * sizeof(Py_ssize_t));
    if (run->callees == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < run->n_calls; i++) {
        if (call_fact(run, i) < 0) return -1;
    }
    for (size_t i = 0; i < run->n_others; i++) {
        size_t k = run->others[i];
        uint16_t v = construct_of(run, k);
        int rc = 0;
        if (v == V_IMPORT || v == V_IMPORT_FROM) {
            rc = imports_of(run, construct_node(run, k), v == V_IMPORT_FROM);
        } else if (v == V_ASSIGNMENT) {
            TSNode node = construct_node(run, k);
            TSNode lhs = part_of(run, k, V_LEFT), rhs = part_of(run, k, V_RIGHT);
            if (ts_node_is_null(lhs) || ts_node_is_null(rhs)) {
                rc = other(run, k, v);
            } else {
                PyObject *scope = scope_at(run->body_iv, run->n_defs, ts_node_start_byte(node));
                rc = assignment(run, scope, node, lhs, rhs);
                if (rc == 0 && holds_items(run, lhs, rhs))
                    rc = item_facts(run, scope, node, lhs, rhs);
            }
        } else if (v == V_REFERENCE_MEMBER) {
            rc = member_read(run, construct_node(run, k), run->m.matches[k].parent);
        } else if (v == V_BINDING_CONTEXT || v == V_ASSIGNMENT_MEMBER ||
                   v == V_BINDING_ITERATION || v == V_BINDING_COMPREHENSION) {
            rc = flow_binding(run, k, v);
        } else if (v == V_BINDING_PARAMETER) {
            rc = parameter_binding(run, k, v);
        } else if (v == V_RETURN) {
            TSNode value = part_of(run, k, V_VALUE);
            rc = ts_node_is_null(value) ? other(run, k, v) : return_fact(run, value);
        } else {
            rc = other(run, k, v);
        }
        if (rc < 0) return -1;
    }
    return 0;
}

/* how far back add_call moves a call before it leaves the order to sort_calls */
enum { MAX_INSERTION = 64 };


/* A call, kept with its parts when its callee and arguments are both there (a pattern
 * capturing them matched no other: only a broken tree has such a call), in its arguments'
 * start order: a call matched alone comes as the walk enters it, before the calls in its
 * callee (`f(x)(y)`); a pattern that captured its arguments completed as they were entered,
 * and that order is the one the chain hooks' caches and the facts keep (call_arguments).
 * The matches come nearly in that order (only chained calls differ): an insertion, which
 * hands a long way back (a chain of thousands of calls) to sort_calls. */
static void add_call(Run *run, size_t k) {
    TSNode callee = part_of(run, k, V_CALLEE), args = part_of(run, k, V_ARGUMENTS);
    if (ts_node_is_null(callee)) callee = field_of(run, construct_node(run, k), F_CALLEE);
    if (ts_node_is_null(args)) args = field_of(run, construct_node(run, k), F_ARGUMENTS);
    if (ts_node_is_null(callee) || ts_node_is_null(args)) return;
    uint32_t key = ts_node_start_byte(args);
    size_t i = run->n_calls++, stop = i > MAX_INSERTION ? i - MAX_INSERTION : 0;
    if (run->calls_unsorted) stop = i;
    while (i > stop && ts_node_start_byte(run->call_parts[2 * (i - 1) + 1]) > key) {
        run->calls[i] = run->calls[i - 1];
        run->call_parts[2 * i] = run->call_parts[2 * (i - 1)];
        run->call_parts[2 * i + 1] = run->call_parts[2 * (i - 1) + 1];
        i--;
    }
    if (i == stop && i > 0 && ts_node_start_byte(run->call_parts[2 * (i - 1) + 1]) > key)
        run->calls_unsorted = true;
    run->calls[i] = k;
    run->call_parts[2 * i] = callee;
    run->call_parts[2 * i + 1] = args;
}

typedef struct {
    uint32_t key;
    size_t match;
    TSNode callee, args;
} CallSort;

static int call_sort_cmp(const void *a, const void *b) {
    const CallSort *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* the calls sorted as add_call would have put them, where it gave up */
static int sort_calls(Run *run) {
    if (!run->calls_unsorted) return 0;
    CallSort *c = PyMem_Malloc(run->n_calls * sizeof(CallSort));
    if (c == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < run->n_calls; i++) {
        TSNode args = run->call_parts[2 * i + 1];
        c[i] = (CallSort){ts_node_start_byte(args), run->calls[i], run->call_parts[2 * i], args};
    }
    qsort(c, run->n_calls, sizeof(CallSort), call_sort_cmp); /* (the keys differ) */
    for (size_t i = 0; i < run->n_calls; i++) {
        run->calls[i] = c[i].match;
        run->call_parts[2 * i] = c[i].callee;
        run->call_parts[2 * i + 1] = c[i].args;
    }
    PyMem_Free(c);
    return 0;
}

/* One pass over the matches: the definitions (a definition construct with its @name and
 * @body, or its name and body fields; one without goes to the `other` hook), and the indices of the calls, decorators,
 * local scopes (scope.* and binding.comprehension, which is also an `other`) and the rest. */
static int sort_matches(Run *run) {
    size_t n = run->m.match_count ? run->m.match_count : 1;
    run->defs = PyMem_Malloc(n * sizeof(Def));
    run->calls = PyMem_Malloc(4 * n * sizeof(size_t));
    run->call_parts = PyMem_Malloc(2 * n * sizeof(TSNode));
    if (run->defs == NULL || run->calls == NULL || run->call_parts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    run->decorators = run->calls + n;
    run->scopes = run->calls + 2 * n;
    run->others = run->calls + 3 * n;
    for (size_t k = 0; k < run->m.match_count; k++) {
        uint16_t v = construct_of(run, k);
        if (v == V_REFERENCE_CALL) {
            add_call(run, k);
            continue;
        }
        if (is_definition(v)) {
            /* a definition's @name and @body, or, for a pattern that captures the definition
               alone, its name and body fields: such a match comes as the walk enters the
               definition, with no state waiting over its parameters for its body */
            TSNode node = construct_node(run, k);
            TSNode name = part_of(run, k, V_NAME), body = part_of(run, k, V_BODY);
            if (ts_node_is_null(name)) name = field_of(run, node, F_NAME);
            if (ts_node_is_null(body)) body = field_of(run, node, F_BODY);
            if (!ts_node_is_null(name) && !ts_node_is_null(body)) {
                uint8_t kind = v == V_DEFINITION_FUNCTION ? K_FUNCTION
                               : v == V_DEFINITION_METHOD ? K_METHOD
                               : v == V_DEFINITION_CLASS  ? K_CLASS
                                                          : K_OTHER;
                run->defs[run->n_defs++] = (Def){node, name, body, k, NULL, kind, v};
                continue;
            }
        }
        if (v == V_DECORATOR) {
            run->decorators[run->n_decorators++] = k;
            continue;
        }
        if (is_local_scope(v)) {
            run->scopes[run->n_scopes++] = k;
            if (FAMILY[v] == FAMILY_SCOPE) continue;
        }
        run->others[run->n_others++] = k;
    }
    return sort_calls(run);
}

PyObject *engine_facts(FactEngine *self, PyObject *const *argv, Py_ssize_t argc) {
    if (check_argc("facts", argc, 4) < 0) return NULL;
    TSNode root;
    if (node_from_object(argv[0], &root) < 0) return NULL;
    if (!PyBytes_Check(argv[1])) {
        PyErr_Format(PyExc_TypeError, "source must be bytes, not %.200s",
                     Py_TYPE(argv[1])->tp_name);
        return NULL;
    }
    if (!PyAnySet_Check(argv[3])) {
        PyErr_SetString(PyExc_TypeError, "module_vars must be a set");
        return NULL;
    }
    if (ts_node_language(root) != self->runner->language) {
        PyErr_SetString(PyExc_ValueError, "the node is of another language than the engine");
        return NULL;
    }
    chains_next_file();
    Run run = {0};
    /* (taken from the engine while the run holds them: a hook running another file's facts
       on this engine starts with none) */
    run.m.matches = self->kept.matches;
    run.m.match_cap = self->kept.match_cap;
    run.m.caps = self->kept.caps;
    run.m.cap_cap = self->kept.cap_cap;
    self->kept = (RunnerMatches){0};
    run.member_start = -1;
    run.e = self;
    run.like = argv[0];
    run.source = argv[1];
    run.src = PyBytes_AS_STRING(argv[1]);
    run.src_len = PyBytes_GET_SIZE(argv[1]);
    run.facts = argv[2];
    run.module_vars = argv[3];
    PyObject *result = NULL;
    for (int l = 0; l < TYPE_COUNT; l++) {
        run.lists[l] = PyObject_GetAttr(run.facts, LIST_ATTRS[l]);
        if (run.lists[l] == NULL) goto done;
        if (!PyList_Check(run.lists[l])) {
            PyErr_Format(PyExc_TypeError, "facts.%s must be a list", LIST_NAMES[l]);
            goto done;
        }
    }
    if (runner_run(self->runner, root, true, false, &run.m) < 0) goto done;
    if (sort_matches(&run) < 0) goto done;
    if (call_arguments(&run) < 0 || definitions(&run) < 0 || decorators(&run) < 0 ||
        local_scopes(&run, self) < 0 || the_rest(&run) < 0)
        goto done;
    result = PyLong_FromUnsignedLong(
        run.m.error_row == UINT32_MAX ? 0 : (unsigned long)run.m.error_row + 1);
done:
    for (size_t i = 0; run.arguments != NULL && i < 2 * run.n_calls; i++)
        Py_XDECREF(run.arguments[i]);
    PyMem_Free(run.arguments);
    PyMem_Free(run.calls);
    PyMem_Free(run.call_parts);
    PyMem_Free(run.callees);
    PyMem_Free(run.known);
    if (run.m.match_cap <= KEPT_MATCHES && run.m.cap_cap <= KEPT_MATCHES &&
        self->kept.matches == NULL && self->kept.caps == NULL) {
        self->kept.matches = run.m.matches;
        self->kept.match_cap = run.m.match_cap;
        self->kept.caps = run.m.caps;
        self->kept.cap_cap = run.m.cap_cap;
    } else {
        runner_matches_free(&run.m);
    }
    for (Py_ssize_t i = 0; i < run.n_defs; i++) Py_XDECREF(run.defs[i].local);
    PyMem_Free(run.defs);
    PyMem_Free(run.body_iv);
    PyMem_Free(run.full_iv);
    PyMem_Free(run.decs);
    for (int l = 0; l < TYPE_COUNT; l++) Py_XDECREF(run.lists[l]);
    Py_XDECREF(run.local_scopes);
    Py_XDECREF(run.scope_names);
    Py_XDECREF(run.rename);
    return result;
}
