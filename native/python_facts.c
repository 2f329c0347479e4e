/*
 * python_facts(node, source, facts, module_vars, env) does all of python.py's extract()
 * after the parse for the native path: syntax.c's walk collects the matches as TSNodes (no
 * Node objects), then the definitions, decorators, calls, imports, assignments and returns
 * become facts here, as python.py's reference code (its query path) makes them, object for
 * object: the same strings are shared between facts (marshal writes a shared object once),
 * the chains come from python.py's own cached `_chain` and `callee_chain`, the interned
 * kinds are the code constants'. The rarer patterns (annotations, annotated assignments,
 * for, comprehension, with and walrus bindings) are handed to python.py's `_other` with
 * Node objects, in match order, so every list of facts keeps the query path's order. */

#include "syntax.h"

enum { K_CLASS, K_FUNCTION, K_METHOD };
enum {
    E_CHAIN, E_CALLEE_CHAIN, E_LOCAL_SCOPES, E_OTHER, E_ALL_VALUE, E_SYMBOL, E_IMPORT,
    E_CALL, E_HERITAGE, E_REFERENCE, E_BINDING, E_RETURN, ENV_COUNT
};
enum { L_SYMBOLS, L_IMPORTS, L_CALLS, L_HERITAGE, L_REFERENCES, L_BINDINGS, L_RETURNS,
       LIST_COUNT };
static const char *const LIST_NAMES[LIST_COUNT] = {
    "symbols", "imports", "calls", "heritage", "references", "bindings", "returns",
};

/* python.py's constants (the identifier-like ones interned, as code constants are); set by
 * python_facts_init */
static PyObject *S_CLASS, *S_FUNCTION, *S_METHOD, *S_VARIABLE, *S_EXTENDS, *S_VALUE, *S_ALL,
    *S_STAR, *S_ANN, *S_EXTRA;

int python_facts_init(void) {
    S_CLASS = PyUnicode_InternFromString("class");
    S_FUNCTION = PyUnicode_InternFromString("function");
    S_METHOD = PyUnicode_InternFromString("method");
    S_VARIABLE = PyUnicode_InternFromString("variable");
    S_EXTENDS = PyUnicode_InternFromString("extends");
    S_VALUE = PyUnicode_InternFromString("value");
    S_ALL = PyUnicode_InternFromString("all");
    S_EXTRA = PyUnicode_InternFromString("extra");
    S_STAR = PyUnicode_FromStringAndSize("*", 1);
    S_ANN = PyUnicode_FromString("ann:");
    if (S_CLASS == NULL || S_FUNCTION == NULL || S_METHOD == NULL || S_VARIABLE == NULL ||
        S_EXTENDS == NULL || S_VALUE == NULL || S_ALL == NULL || S_EXTRA == NULL ||
        S_STAR == NULL || S_ANN == NULL)
        return -1;
    return 0;
}

typedef struct {
    TSNode node, name, body;
    size_t order;     /* in match order, for a stable sort */
    PyObject *local;  /* owned */
    uint8_t kind;
} Def;

typedef struct {
    Ctx *ctx;
    PyObject *const *env;
    PyObject *lists[LIST_COUNT]; /* facts' lists, by L_* */
    PyObject *facts, *source, *module_vars, *local_scopes;
    Def *defs;
    Py_ssize_t n_defs;
    Interval *body_iv, *full_iv;
} Facts;

static TSNode field(const Facts *f, TSNode node, int which) {
    return ts_node_child_by_field_id(node, syntax_field(f->ctx->ids, which));
}

static uint8_t cat(const Facts *f, TSNode node) { return syntax_category(f->ctx->ids, node); }

/* node.text.decode() */
static PyObject *decoded(const Facts *f, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(f->ctx, node, &ptr, &len);
    return PyUnicode_DecodeUTF8(ptr, len, NULL);
}

static PyObject *line_of(TSNode node) {
    return PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(node).row + 1);
}

/* Appends type(*items) (a NamedTuple made as tuple.__new__ makes it) to list `l`, stealing
 * the n item references (NULL ones mean an error was set). */
static int append_fact(Facts *f, int l, int type, Py_ssize_t n, PyObject **items) {
    PyTypeObject *fact_type = (PyTypeObject *)f->env[type];
    PyObject *fact = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL) goto error;
    }
    fact = fact_type->tp_alloc(fact_type, n);
    if (fact == NULL) goto error;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(fact, i, items[i]);
    int rc = PyList_Append(f->lists[l], fact);
    Py_DECREF(fact);
    return rc;
error:
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(items[i]);
    return -1;
}

/* A chain result is used when truthy (a non-empty str); -1 on an error. */
static int usable(PyObject *chain) {
    if (chain == NULL) return -1;
    return chain != Py_None && PyUnicode_Check(chain) && PyUnicode_GET_LENGTH(chain) > 0;
}

static bool starts_with(PyObject *s, char c) {
    return PyUnicode_GET_LENGTH(s) > 0 && PyUnicode_READ_CHAR(s, 0) == (Py_UCS4)c;
}

/* s.startswith(prefix) for an ASCII prefix */
static bool has_prefix(PyObject *s, const char *prefix) {
    Py_ssize_t n = (Py_ssize_t)strlen(prefix);
    if (PyUnicode_GET_LENGTH(s) < n) return false;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_READ_CHAR(s, i) != (Py_UCS4)(unsigned char)prefix[i]) return false;
    }
    return true;
}

/* type_text(text): whitespace and quotes removed; "" beyond 200 bytes */
static PyObject *type_text_of(const Facts *f, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(f->ctx, node, &ptr, &len);
    char *buf = PyMem_Malloc(len ? (size_t)len : 1);
    if (buf == NULL) return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)ptr[i];
        if (!is_space_byte(c) && c != '"' && c != '\'') buf[n++] = (char)c;
    }
    PyObject *out = n > 200 ? Py_NewRef(NO_SCOPE) : PyUnicode_DecodeUTF8(buf, n, "replace");
    PyMem_Free(buf);
    return out;
}

/* s.strip() bounds (str.isspace), narrowing [*a, *b) */
static void strip_bounds(PyObject *s, Py_ssize_t *a, Py_ssize_t *b) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    while (*a < *b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, *a))) (*a)++;
    while (*b > *a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, *b - 1))) (*b)--;
}

/* The text of a signature or of a variable's first line: `b" ".join(raw.split())` when
 * `join_spaces`, decoded with errors="replace", then `.strip()`, with `.rstrip(":").strip()`
 * when `colon`, and cut to 300 characters. */
static PyObject *squeezed(const char *ptr, Py_ssize_t len, bool join_spaces, bool colon) {
    char *buf = PyMem_Malloc(len ? (size_t)len : 1);
    if (buf == NULL) return PyErr_NoMemory();
    Py_ssize_t n = 0;
    if (join_spaces) {
        bool pending = false;
        for (Py_ssize_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)ptr[i];
            if (is_space_byte(c)) {
                pending = n > 0;
                continue;
            }
            if (pending) buf[n++] = ' ';
            pending = false;
            buf[n++] = (char)c;
        }
    } else {
        memcpy(buf, ptr, (size_t)len);
        n = len;
    }
    PyObject *s = PyUnicode_DecodeUTF8(buf, n, "replace");
    PyMem_Free(buf);
    if (s == NULL) return NULL;
    Py_ssize_t a = 0, b = PyUnicode_GET_LENGTH(s);
    strip_bounds(s, &a, &b);
    if (colon) {
        while (b > a && PyUnicode_READ_CHAR(s, b - 1) == ':') b--;
        strip_bounds(s, &a, &b);
    }
    if (b - a > 300) b = a + 300;
    PyObject *out = PyUnicode_Substring(s, a, b);
    Py_DECREF(s);
    return out;
}

/* first named child of `node` (node.named_child(0)); null when none */
static TSNode first_named(TSNode node) {
    return ts_node_named_child_count(node) ? ts_node_named_child(node, 0) : (TSNode){0};
}

/* ---- definitions ---- */

/* `out` as a tuple (NULL after an error), the cursor over its source deleted */
static PyObject *tuple_of(TSTreeCursor *cursor, PyObject *out, bool failed) {
    ts_tree_cursor_delete(cursor);
    PyObject *result = failed ? NULL : PyList_AsTuple(out);
    Py_DECREF(out);
    return result;
}

/* python.py's _params(node, source) */
static PyObject *params_of(Facts *f, TSNode def) {
    TSNode params = field(f, def, F_PARAMETERS);
    if (ts_node_is_null(params)) return PyTuple_New(0);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    TSTreeCursor cursor = ts_tree_cursor_new(params);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode p = ts_tree_cursor_current_node(&cursor);
            if (!ts_node_is_named(p)) continue;
            uint8_t t = cat(f, p);
            if (t == C_IDENTIFIER) {
                if (append_pair(out, decoded(f, p), Py_NewRef(NO_SCOPE)) < 0) goto error;
            } else if (t == C_TYPED_PARAMETER || t == C_TYPED_DEFAULT_PARAMETER ||
                       t == C_DEFAULT_PARAMETER) {
                TSNode name = field(f, p, F_NAME);
                if (ts_node_is_null(name)) {
                    uint32_t k = ts_node_child_count(p);
                    for (uint32_t i = 0; i < k; i++) {
                        TSNode c = ts_node_child(p, i);
                        if (ts_node_is_named(c) && cat(f, c) == C_IDENTIFIER) {
                            name = c;
                            break;
                        }
                    }
                }
                TSNode typ = field(f, p, F_TYPE);
                PyObject *ann = ts_node_is_null(typ) ? Py_NewRef(NO_SCOPE) : type_text_of(f, typ);
                if (ann == NULL) goto error;
                uint8_t nc = ts_node_is_null(name) ? C_OTHER : cat(f, name);
                if (nc == C_IDENTIFIER) {
                    if (append_pair(out, decoded(f, name), ann) < 0) goto error;
                } else if (nc == C_LIST_SPLAT_PATTERN || nc == C_DICTIONARY_SPLAT_PATTERN) {
                    Py_DECREF(ann);
                    TSNode inner = first_named(name);
                    if (!ts_node_is_null(inner)) {
                        PyObject *d = decoded(f, inner);
                        PyObject *star = d ? PyUnicode_Concat(S_STAR, d) : NULL;
                        Py_XDECREF(d);
                        if (append_pair(out, star, Py_NewRef(NO_SCOPE)) < 0) goto error;
                    }
                } else {
                    Py_DECREF(ann);
                }
            } else if (t == C_LIST_SPLAT_PATTERN || t == C_DICTIONARY_SPLAT_PATTERN) {
                TSNode inner = first_named(p);
                if (!ts_node_is_null(inner) && cat(f, inner) == C_IDENTIFIER) {
                    PyObject *d = decoded(f, inner);
                    PyObject *star = d ? PyUnicode_Concat(S_STAR, d) : NULL;
                    Py_XDECREF(d);
                    if (append_pair(out, star, Py_NewRef(NO_SCOPE)) < 0) goto error;
                }
            }
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    return tuple_of(&cursor, out, false);
error:
    return tuple_of(&cursor, out, true);
}

/* python.py's _decorators(decorated, source) */
static PyObject *decorators_of(Facts *f, TSNode decorated) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    TSTreeCursor cursor = ts_tree_cursor_new(decorated);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode dec = ts_tree_cursor_current_node(&cursor);
            if (!ts_node_is_named(dec) || cat(f, dec) != C_DECORATOR) continue;
            TSNode expr = first_named(dec);
            if (ts_node_is_null(expr)) continue;
            if (cat(f, expr) == C_CALL) {
                TSNode fn = field(f, expr, F_FUNCTION);
                if (!ts_node_is_null(fn)) expr = fn;
            }
            PyObject *chain = call_on_text(f->ctx, f->env[E_CHAIN], expr);
            int ok = usable(chain);
            if (ok < 0 || (ok && PyList_Append(out, chain) < 0)) {
                Py_XDECREF(chain);
                goto error;
            }
            Py_DECREF(chain);
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    return tuple_of(&cursor, out, false);
error:
    return tuple_of(&cursor, out, true);
}

/* python.py's _heritage(node, local, source, facts) */
static int heritage_of(Facts *f, TSNode node, PyObject *local) {
    TSNode supers = field(f, node, F_SUPERCLASSES);
    if (ts_node_is_null(supers)) return 0;
    TSTreeCursor cursor = ts_tree_cursor_new(supers);
    int rc = 0;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode arg = ts_tree_cursor_current_node(&cursor);
            if (!ts_node_is_named(arg)) continue;
            uint8_t t = cat(f, arg);
            if (t == C_KEYWORD_ARGUMENT) continue;
            if (t == C_SUBSCRIPT) {
                TSNode value = field(f, arg, F_VALUE);
                if (!ts_node_is_null(value)) arg = value;
            }
            PyObject *chain = call_on_text(f->ctx, f->env[E_CHAIN], arg);
            int ok = usable(chain);
            if (ok <= 0) {
                Py_XDECREF(chain);
                if (ok < 0) {
                    rc = -1;
                    break;
                }
                continue;
            }
            PyObject *items[4] = {Py_NewRef(local), chain, line_of(arg), Py_NewRef(S_EXTENDS)};
            if (append_fact(f, L_HERITAGE, E_HERITAGE, 4, items) < 0) {
                rc = -1;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    return rc;
}

static int compare_defs(const void *a, const void *b) {
    const Def *x = a, *y = b;
    uint32_t sx = ts_node_start_byte(x->node), sy = ts_node_start_byte(y->node);
    if (sx != sy) return sx < sy ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* the definitions loop of extract(): symbols, heritage, return annotations, intervals */
static int definitions(Facts *f) {
    Py_ssize_t n = f->n_defs;
    qsort(f->defs, (size_t)n, sizeof(Def), compare_defs);
    f->body_iv = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Interval));
    f->full_iv = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Interval));
    Py_ssize_t *stack = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    PyObject *seen = PyDict_New();
    int rc = -1;
    if (f->body_iv == NULL || f->full_iv == NULL || stack == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (seen == NULL) goto done;
    Py_ssize_t depth = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Def *d = &f->defs[i];
        uint32_t start = ts_node_start_byte(d->node);
        while (depth > 0 && ts_node_end_byte(f->defs[stack[depth - 1]].node) <= start) depth--;
        Py_ssize_t parent = depth > 0 ? stack[depth - 1] : -1;
        PyObject *parent_local = parent >= 0 ? f->defs[parent].local : NO_SCOPE;
        PyObject *name = decoded(f, d->name);
        if (name == NULL) goto done;
        PyObject *local = PyUnicode_GET_LENGTH(parent_local)
                              ? PyUnicode_FromFormat("%U.%U", parent_local, name)
                              : Py_NewRef(name);
        if (local == NULL) {
            Py_DECREF(name);
            goto done;
        }
        PyObject *count = PyDict_GetItemWithError(seen, local);
        long k = count ? PyLong_AsLong(count) + 1 : 1;
        if (PyErr_Occurred()) goto fail;
        PyObject *kobj = PyLong_FromLong(k);
        if (kobj == NULL || PyDict_SetItem(seen, local, kobj) < 0) {
            Py_XDECREF(kobj);
            goto fail;
        }
        Py_DECREF(kobj);
        if (k > 1) {
            Py_SETREF(local, PyUnicode_FromFormat("%U#%ld", local, k));
            if (local == NULL) {
                Py_DECREF(name);
                goto done;
            }
        }
        if (d->kind == K_FUNCTION && parent >= 0 && f->defs[parent].kind == K_CLASS)
            d->kind = K_METHOD;
        d->local = local; /* owned by the def from here */
        TSNode body = d->body;
        f->body_iv[i] = (Interval){ts_node_start_byte(body), ts_node_end_byte(body), parent,
                                   local};
        f->full_iv[i] = (Interval){start, ts_node_end_byte(d->node), parent, local};
        stack[depth++] = i;

        PyObject *params = d->kind != K_CLASS ? params_of(f, d->node) : PyTuple_New(0);
        TSNode outer = d->node;
        TSNode up = ts_node_parent(d->node);
        if (!ts_node_is_null(up) && cat(f, up) == C_DECORATED) outer = up;
        PyObject *decorators = ts_node_eq(outer, d->node) ? PyTuple_New(0)
                                                           : decorators_of(f, outer);
        /* source[start : body.start_byte], clamped as Python slices */
        Py_ssize_t from = start < f->ctx->src_len ? (Py_ssize_t)start : f->ctx->src_len;
        Py_ssize_t to = (Py_ssize_t)ts_node_start_byte(body);
        if (to > f->ctx->src_len) to = f->ctx->src_len;
        PyObject *signature = squeezed(f->ctx->src + from, to > from ? to - from : 0, true, true);
        Py_ssize_t nl = PyUnicode_GET_LENGTH(name);
        /* not name.startswith("_") or (name.startswith("__") and name.endswith("__")) */
        bool exported = !starts_with(name, '_') ||
                        (nl >= 2 && PyUnicode_READ_CHAR(name, 1) == '_' &&
                         PyUnicode_READ_CHAR(name, nl - 1) == '_' &&
                         PyUnicode_READ_CHAR(name, nl - 2) == '_');
        bool is_test = has_prefix(name, d->kind == K_CLASS ? "Test" : "test");
        PyObject *kind = d->kind == K_CLASS ? S_CLASS : d->kind == K_METHOD ? S_METHOD : S_FUNCTION;
        PyObject *items[12] = {
            Py_NewRef(local),
            Py_NewRef(kind),
            name, /* the reference decoded above */
            PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(outer).row + 1),
            PyLong_FromUnsignedLong((unsigned long)ts_node_end_point(d->node).row + 1),
            PyLong_FromUnsignedLong(ts_node_start_byte(outer)),
            PyLong_FromUnsignedLong(ts_node_end_byte(d->node)),
            signature,
            Py_NewRef(exported ? Py_True : Py_False),
            Py_NewRef(is_test ? Py_True : Py_False),
            params,
            decorators,
        };
        if (append_fact(f, L_SYMBOLS, E_SYMBOL, 12, items) < 0) goto done;
        if (d->kind == K_CLASS) {
            if (heritage_of(f, d->node, local) < 0) goto done;
        } else {
            TSNode rtype = field(f, d->node, F_RETURN_TYPE);
            if (!ts_node_is_null(rtype)) {
                PyObject *t = type_text_of(f, rtype);
                if (t == NULL) goto done;
                if (PyUnicode_GET_LENGTH(t) && PyUnicode_CompareWithASCIIString(t, "None") != 0) {
                    PyObject *value = PyUnicode_Concat(S_ANN, t);
                    PyObject *ritems[4] = {Py_NewRef(local), value, Py_NewRef(Py_False),
                                           line_of(rtype)};
                    Py_DECREF(t);
                    if (append_fact(f, L_RETURNS, E_RETURN, 4, ritems) < 0) goto done;
                } else {
                    Py_DECREF(t);
                }
            }
        }
        continue;
    fail:
        Py_DECREF(name);
        Py_DECREF(local);
        goto done;
    }
    rc = 0;
done:
    PyMem_Free(stack);
    Py_XDECREF(seen);
    return rc;
}

/* the def starting at byte `start` (local_at_start), or -1 */
static Py_ssize_t def_at_start(const Facts *f, uint32_t start) {
    Py_ssize_t lo = 0, hi = f->n_defs;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        uint32_t s = ts_node_start_byte(f->defs[mid].node);
        if (s == start) return mid;
        if (s < start) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* _Scopes.at over the body intervals, as an interval index (-1: the module) */
static Py_ssize_t scope_index(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
    for (Py_ssize_t i = last_starting_at(iv, n, pos); i >= 0; i = iv[i].parent) {
        if (iv[i].start <= pos && pos < iv[i].end) return i;
    }
    return -1;
}

static int compare_intervals(const void *a, const void *b) {
    const Interval *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* the decorators loop of extract(): their intervals (sorted) and the calls of decorators
 * that are not calls themselves */
static Interval *decorator_intervals(Facts *f, Py_ssize_t *n_out) {
    Ctx *ctx = f->ctx;
    Interval *decs = PyMem_Malloc((ctx->found_count ? ctx->found_count : 1) * sizeof(Interval));
    if (decs == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t n = 0;
    for (size_t m = 0; m < ctx->found_count; m++) {
        const Found *found = &ctx->found[m];
        if (found->pattern != 2 /* P_DECORATOR */) continue;
        TSNode dec = found->nodes[0];
        TSNode up = ts_node_parent(dec);
        TSNode target = ts_node_is_null(up) ? (TSNode){0} : field(f, up, F_DEFINITION);
        PyObject *scope;
        if (!ts_node_is_null(target)) {
            Py_ssize_t d = def_at_start(f, ts_node_start_byte(target));
            scope = d >= 0 ? f->defs[d].local : NO_SCOPE;
        } else {
            scope = scope_at(f->body_iv, f->n_defs, ts_node_start_byte(dec));
        }
        TSNode expr = first_named(dec);
        if (ts_node_is_null(expr)) continue;
        decs[n++] = (Interval){ts_node_start_byte(dec), ts_node_end_byte(dec), -1, scope};
        if (cat(f, expr) == C_CALL) continue;
        PyObject *chain = call_on_text(f->ctx, f->env[E_CALLEE_CHAIN], expr);
        int ok = usable(chain);
        if (ok <= 0) {
            Py_XDECREF(chain);
            if (ok < 0) goto error;
            continue;
        }
        PyObject *items[5] = {Py_NewRef(scope), chain, line_of(expr), Py_NewRef(KIND_DECORATOR),
                              PyTuple_New(0)};
        if (append_fact(f, L_CALLS, E_CALL, 5, items) < 0) goto error;
    }
    qsort(decs, (size_t)n, sizeof(Interval), compare_intervals);
    *n_out = n;
    return decs;
error:
    PyMem_Free(decs);
    return NULL;
}

/* ---- imports, assignments, returns ---- */

/* ImportFact(scope, module, level, name, alias, line): module to alias stolen */
static int import_fact(Facts *f, PyObject *scope, PyObject *module, PyObject *level,
                       PyObject *name, PyObject *alias, PyObject *line) {
    PyObject *items[6] = {Py_NewRef(scope), module, level, name, alias, Py_NewRef(line)};
    return append_fact(f, L_IMPORTS, E_IMPORT, 6, items);
}

/* `child.child_by_field_name(which).text.decode()`, raising as Python would on None */
static PyObject *field_text(Facts *f, TSNode node, int which) {
    TSNode c = field(f, node, which);
    if (ts_node_is_null(c)) {
        PyErr_SetString(PyExc_AttributeError, "'NoneType' object has no attribute 'text'");
        return NULL;
    }
    return decoded(f, c);
}

/* one `name` child of an import: `import a.b [as c]` (module NULL) or `from m import x [as
 * y]` */
static int import_name(Facts *f, TSNode child, PyObject *scope, PyObject *module,
                       PyObject *level, PyObject *line) {
    PyObject *name, *alias;
    if (cat(f, child) == C_ALIASED_IMPORT) {
        name = field_text(f, child, F_NAME);
        alias = name ? field_text(f, child, F_ALIAS) : NULL;
        if (alias == NULL) {
            Py_XDECREF(name);
            return -1;
        }
    } else {
        name = decoded(f, child);
        alias = Py_NewRef(NO_SCOPE);
        if (name == NULL) {
            Py_DECREF(alias);
            return -1;
        }
    }
    if (module == NULL) /* import: the name is the module */
        return import_fact(f, scope, name, PyLong_FromLong(0), Py_NewRef(NO_SCOPE), alias, line);
    return import_fact(f, scope, Py_NewRef(module), Py_NewRef(level), name, alias, line);
}

/* python.py's _imports(node, pattern, scope, source, facts) */
static int imports_of(Facts *f, TSNode node, uint16_t pattern, PyObject *scope) {
    if (pattern == 6 /* P_IMPORT_FUTURE */) return 0;
    PyObject *line = line_of(node);
    if (line == NULL) return -1;
    PyObject *zero = PyLong_FromLong(0);
    PyObject *module = Py_NewRef(NO_SCOPE), *level = zero;
    int rc = -1;
    TSFieldId f_name = syntax_field(f->ctx->ids, F_NAME);
    if (pattern == 5 /* P_IMPORT_FROM */) {
        TSNode mod = field(f, node, F_MODULE_NAME);
        if (!ts_node_is_null(mod)) {
            if (cat(f, mod) == C_RELATIVE_IMPORT) {
                uint32_t k = ts_node_child_count(mod);
                for (uint32_t i = 0; i < k; i++) {
                    TSNode c = ts_node_child(mod, i);
                    uint8_t t = cat(f, c);
                    if (t == C_IMPORT_PREFIX) {
                        Py_SETREF(level,
                                  PyLong_FromUnsignedLong(ts_node_end_byte(c) - ts_node_start_byte(c)));
                        if (level == NULL) goto done;
                    } else if (t == C_DOTTED_NAME) {
                        Py_SETREF(module, decoded(f, c));
                        if (module == NULL) goto done;
                    }
                }
            } else {
                Py_SETREF(module, decoded(f, mod));
                if (module == NULL) goto done;
            }
        }
    }
    bool any_name = false, wildcard = false;
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode child = ts_tree_cursor_current_node(&cursor);
            if (ts_tree_cursor_current_field_id(&cursor) == f_name) {
                any_name = true;
                if (import_name(f, child, scope, pattern == 5 ? module : NULL, level, line) <
                    0) {
                    ts_tree_cursor_delete(&cursor);
                    goto done;
                }
            } else if (cat(f, child) == C_WILDCARD_IMPORT) {
                wildcard = true;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    if (pattern == 5 && !any_name && wildcard) {
        if (import_fact(f, scope, Py_NewRef(module), Py_NewRef(level), Py_NewRef(S_STAR),
                        Py_NewRef(NO_SCOPE), line) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_DECREF(line);
    Py_XDECREF(module);
    Py_XDECREF(level);
    return rc;
}

/* python.py's _module_var(name, node, source, facts, seen) */
static int module_var(Facts *f, PyObject *name, TSNode node) {
    int has = PySet_Contains(f->module_vars, name);
    if (has != 0) return has < 0 ? -1 : 0;
    if (PySet_Add(f->module_vars, name) < 0) return -1;
    TSNode up = ts_node_parent(node);
    TSNode stmt = !ts_node_is_null(up) && cat(f, up) == C_EXPRESSION_STATEMENT ? up : node;
    const char *ptr;
    Py_ssize_t len;
    span(f->ctx, stmt, &ptr, &len);
    const char *nl = memchr(ptr, '\n', (size_t)len);
    if (nl != NULL) len = nl - ptr;
    PyObject *items[12] = {
        Py_NewRef(name),
        Py_NewRef(S_VARIABLE),
        Py_NewRef(name),
        PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(stmt).row + 1),
        PyLong_FromUnsignedLong((unsigned long)ts_node_end_point(stmt).row + 1),
        PyLong_FromUnsignedLong(ts_node_start_byte(stmt)),
        PyLong_FromUnsignedLong(ts_node_end_byte(stmt)),
        squeezed(ptr, len, false, false),
        Py_NewRef(starts_with(name, '_') ? Py_False : Py_True),
        Py_NewRef(Py_False),
        PyTuple_New(0),
        PyTuple_New(0),
    };
    return append_fact(f, L_SYMBOLS, E_SYMBOL, 12, items);
}

/* python.py's _bind_value(scope, name, rhs, node, source, facts) */
static int bind_value(Facts *f, PyObject *scope, PyObject *name, TSNode rhs, TSNode node) {
    PyObject *line = line_of(node);
    if (line == NULL) return -1;
    int rc = 0;
    uint8_t t = cat(f, rhs);
    if (t == C_CALL) {
        TSNode fn = field(f, rhs, F_FUNCTION);
        if (!ts_node_is_null(fn)) {
            PyObject *chain = call_on_text(f->ctx, f->env[E_CALLEE_CHAIN], fn);
            int ok = usable(chain);
            if (ok > 0) {
                PyObject *items[5] = {Py_NewRef(scope), Py_NewRef(name), chain,
                                      Py_NewRef(Py_True), Py_NewRef(line)};
                rc = append_fact(f, L_BINDINGS, E_BINDING, 5, items);
            } else {
                Py_XDECREF(chain);
                rc = ok;
            }
        }
    } else if (t == C_IDENTIFIER || t == C_ATTRIBUTE) {
        PyObject *chain = call_on_text(f->ctx, f->env[E_CHAIN], rhs);
        int ok = usable(chain);
        if (ok > 0) {
            PyObject *items[5] = {Py_NewRef(scope), Py_NewRef(name), Py_NewRef(chain),
                                  Py_NewRef(Py_False), Py_NewRef(line)};
            rc = append_fact(f, L_BINDINGS, E_BINDING, 5, items);
            PyObject *refs[4] = {Py_NewRef(scope), chain, Py_NewRef(line), Py_NewRef(S_VALUE)};
            if (rc == 0) {
                rc = append_fact(f, L_REFERENCES, E_REFERENCE, 4, refs);
            } else {
                for (int i = 0; i < 4; i++) Py_DECREF(refs[i]);
            }
        } else {
            Py_XDECREF(chain);
            rc = ok;
        }
    }
    Py_DECREF(line);
    return rc;
}

/* python.py's _target_name(lhs, source): a new reference, Py_None, or NULL */
static PyObject *target_name(Facts *f, TSNode lhs) {
    uint8_t t = cat(f, lhs);
    if (t == C_IDENTIFIER) return decoded(f, lhs);
    if (t != C_ATTRIBUTE) return Py_NewRef(Py_None);
    PyObject *chain = call_on_text(f->ctx, f->env[E_CHAIN], lhs);
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok < 0 ? NULL : Py_NewRef(Py_None);
    }
    /* chain.startswith("self.") and chain.count(".") == 1 */
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
    bool self_attr = has_prefix(chain, "self.");
    for (Py_ssize_t i = 5; self_attr && i < n; i++) {
        if (PyUnicode_READ_CHAR(chain, i) == '.') self_attr = false;
    }
    if (self_attr) return chain;
    Py_DECREF(chain);
    return Py_NewRef(Py_None);
}

/* python.py's _assignment(scope, lhs, rhs, node, source, facts, module_vars) */
static int assignment(Facts *f, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs) {
    bool module_scope = PyUnicode_GET_LENGTH(scope) == 0;
    uint8_t lt = cat(f, lhs);
    if (lt == C_PATTERN_LIST || lt == C_TUPLE_PATTERN) {
        if (!module_scope) return 0;
        uint32_t k = ts_node_child_count(lhs);
        for (uint32_t i = 0; i < k; i++) {
            TSNode t = ts_node_child(lhs, i);
            if (!ts_node_is_named(t) || cat(f, t) != C_IDENTIFIER) continue;
            PyObject *name = decoded(f, t);
            if (name == NULL) return -1;
            int rc = module_var(f, name, node);
            Py_DECREF(name);
            if (rc < 0) return -1;
        }
        return 0;
    }
    PyObject *name = target_name(f, lhs);
    if (name == NULL) return -1;
    if (name == Py_None) {
        Py_DECREF(name);
        return 0;
    }
    int rc = -1;
    if (module_scope && lt == C_IDENTIFIER) {
        if (module_var(f, name, node) < 0) goto done;
        uint8_t rt = cat(f, rhs);
        if ((rt == C_LIST || rt == C_TUPLE) &&
            PyUnicode_CompareWithASCIIString(name, "__all__") == 0) {
            PyObject *rhs_node = new_node(f->ctx, rhs);
            if (rhs_node == NULL) goto done;
            PyObject *value = PyObject_CallFunctionObjArgs(f->env[E_ALL_VALUE], rhs_node,
                                                           f->source, NULL);
            Py_DECREF(rhs_node);
            if (value == NULL) goto done;
            if (value != Py_None) {
                PyObject *extra = PyObject_GetAttr(f->facts, S_EXTRA);
                int set = extra ? PyObject_SetItem(extra, S_ALL, value) : -1;
                Py_XDECREF(extra);
                if (set < 0) {
                    Py_DECREF(value);
                    goto done;
                }
            }
            Py_DECREF(value);
        }
    }
    while (cat(f, rhs) == C_ASSIGNMENT) { /* a = b = value: bind the innermost value */
        TSNode right = field(f, rhs, F_RIGHT);
        if (ts_node_is_null(right)) break;
        rhs = right;
    }
    rc = bind_value(f, scope, name, rhs, node);
done:
    Py_DECREF(name);
    return rc;
}

/* the P_RETURN branch of extract() */
static int return_fact(Facts *f, TSNode value) {
    Py_ssize_t i = scope_index(f->body_iv, f->n_defs, ts_node_start_byte(value));
    if (i < 0 || f->defs[i].kind == K_CLASS) return 0;
    PyObject *chain;
    PyObject *is_call;
    if (cat(f, value) == C_CALL) {
        TSNode fn = field(f, value, F_FUNCTION);
        if (ts_node_is_null(fn)) return 0;
        chain = call_on_text(f->ctx, f->env[E_CALLEE_CHAIN], fn);
        is_call = Py_True;
    } else {
        chain = call_on_text(f->ctx, f->env[E_CHAIN], value);
        is_call = Py_False;
    }
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok;
    }
    PyObject *items[4] = {Py_NewRef(f->defs[i].local), chain, Py_NewRef(is_call),
                          line_of(value)};
    return append_fact(f, L_RETURNS, E_RETURN, 4, items);
}

/* (pattern, (node, ...)) with Node objects, as the query path has a match */
static PyObject *match_object(Facts *f, const Found *found) {
    PyObject *nodes = PyTuple_New(found->count);
    if (nodes == NULL) return NULL;
    for (uint8_t i = 0; i < found->count; i++) {
        PyObject *node = new_node(f->ctx, found->nodes[i]);
        if (node == NULL) {
            Py_DECREF(nodes);
            return NULL;
        }
        PyTuple_SET_ITEM(nodes, i, node);
    }
    PyObject *out = Py_BuildValue("(HN)", found->pattern, nodes);
    return out;
}

/* python.py's _LocalScopes of the comprehension and lambda matches */
static PyObject *local_scopes_of(Facts *f) {
    PyObject *matches = PyList_New(0);
    if (matches == NULL) return NULL;
    for (size_t m = 0; m < f->ctx->found_count; m++) {
        const Found *found = &f->ctx->found[m];
        if (found->pattern != 14 && found->pattern != 15) continue; /* P_COMPFOR, P_LAMBDA */
        PyObject *item = match_object(f, found);
        if (item == NULL || PyList_Append(matches, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(matches);
            return NULL;
        }
        Py_DECREF(item);
    }
    PyObject *out = PyObject_CallOneArg(f->env[E_LOCAL_SCOPES], matches);
    Py_DECREF(matches);
    return out;
}

/* the others loop of extract(), in match order */
static int others(Facts *f) {
    for (size_t m = 0; m < f->ctx->found_count; m++) {
        const Found *found = &f->ctx->found[m];
        TSNode node = found->nodes[0];
        int rc = 0;
        switch (found->pattern) {
        case 0: case 1: case 2: case 15: /* definitions, decorators, lambdas: done */
            continue;
        case 4: case 5: case 6:
            rc = imports_of(f, node, found->pattern,
                            scope_at(f->body_iv, f->n_defs, ts_node_start_byte(node)));
            break;
        case 7:
            rc = assignment(f, scope_at(f->body_iv, f->n_defs, ts_node_start_byte(node)), node,
                            found->nodes[1], found->nodes[2]);
            break;
        case 9:
            rc = return_fact(f, found->nodes[1]);
            break;
        default: {
            /* the rarer patterns: python.py's _other, with the scope it would find */
            const Interval *iv = found->pattern == 10 ? f->full_iv : f->body_iv;
            PyObject *scope = scope_at(iv, f->n_defs, ts_node_start_byte(node));
            PyObject *match = match_object(f, found);
            if (match == NULL) return -1;
            PyObject *args[7] = {f->facts, f->source, f->module_vars, f->local_scopes,
                                 PyTuple_GET_ITEM(match, 0), PyTuple_GET_ITEM(match, 1), scope};
            PyObject *r = PyObject_Vectorcall(f->env[E_OTHER], args, 7, NULL);
            Py_DECREF(match);
            if (r == NULL) return -1;
            Py_DECREF(r);
        }
        }
        if (rc < 0) return -1;
    }
    return 0;
}

const char python_facts_doc[] = PyDoc_STR(
"python_facts(node, source, facts, module_vars, env, /)\n--\n\n"
"Everything python.py's extract() finds after the module symbol, appended to `facts`' lists\n"
"(and facts.extra['all']): the definitions, decorators, calls, imports, assignments,\n"
"returns and, through env's `_other`, the rarer patterns, as its query path makes them.\n"
"`module_vars` is the set of module variables named so far; `env` holds python.py's\n"
"_chain, callee_chain, _LocalScopes, _other, _all_value and the seven fact types.\n"
"Returns the first syntax error's line (0: none found), or None, having added nothing,\n"
"when the walk cannot reproduce the query on this tree (use the query then).");

PyObject *python_facts(PyObject *Py_UNUSED(module), PyObject *const *argv,
                              Py_ssize_t argc) {
    if (check_argc("python_facts", argc, 5) < 0) return NULL;
    TSNode root;
    if (check_tree_args(argv, &root) < 0) return NULL;
    PyObject *source = argv[1], *env = argv[4];
    if (!PyAnySet_Check(argv[3])) {
        PyErr_SetString(PyExc_TypeError, "module_vars must be a set");
        return NULL;
    }
    if (!PyTuple_Check(env) || PyTuple_GET_SIZE(env) != ENV_COUNT) {
        PyErr_Format(PyExc_TypeError, "env must be a tuple of %d items", ENV_COUNT);
        return NULL;
    }
    for (int i = E_SYMBOL; i < ENV_COUNT; i++) {
        PyObject *t = PyTuple_GET_ITEM(env, i);
        if (!PyType_Check(t) || !PyType_IsSubtype((PyTypeObject *)t, &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "env's fact types must be tuple subclasses");
            return NULL;
        }
    }
    const LangIds *ids = lang_ids(ts_node_language(root));
    if (ids == NULL) return NULL;
    if (!syntax_facts_usable(ids)) Py_RETURN_NONE;

    Ctx ctx;
    uint32_t error_row;
    int rc = run_walk(&ctx, ids, argv[0], root, source, PyTuple_GET_ITEM(env, E_CHAIN), true,
                      &error_row);

    Facts f = {0};
    f.ctx = &ctx;
    f.env = &PyTuple_GET_ITEM(env, 0);
    f.facts = argv[2];
    f.source = source;
    f.module_vars = argv[3];
    PyObject *result = NULL, *calls = NULL, *names = NULL, *rename = NULL, *call_facts = NULL;
    Interval *decs = NULL;
    if (rc != 0) {
        if (rc > 0) result = Py_NewRef(Py_None);
        goto done;
    }
    for (int l = 0; l < LIST_COUNT; l++) {
        f.lists[l] = PyObject_GetAttrString(f.facts, LIST_NAMES[l]);
        if (f.lists[l] == NULL) goto done;
        if (!PyList_Check(f.lists[l])) {
            PyErr_Format(PyExc_TypeError, "facts.%s must be a list", LIST_NAMES[l]);
            goto done;
        }
    }
    f.defs = PyMem_Malloc((ctx.found_count ? ctx.found_count : 1) * sizeof(Def));
    if (f.defs == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t m = 0; m < ctx.found_count; m++) {
        const Found *found = &ctx.found[m];
        if (found->pattern > 1) continue; /* P_CLASS, P_FUNCTION */
        f.defs[f.n_defs++] = (Def){found->nodes[0], found->nodes[1], found->nodes[2], m, NULL,
                                   found->pattern == 0 ? K_CLASS : K_FUNCTION};
    }
    if (definitions(&f) < 0) goto done;
    Py_ssize_t n_decs = 0;
    decs = decorator_intervals(&f, &n_decs);
    if (decs == NULL) goto done;
    f.local_scopes = local_scopes_of(&f);
    if (f.local_scopes == NULL) goto done;
    names = PyObject_GetAttrString(f.local_scopes, "names");
    rename = names ? PyObject_GetAttrString(f.local_scopes, "rename") : NULL;
    if (rename == NULL) goto done;
    if (!PyAnySet_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "_LocalScopes.names must be a set");
        goto done;
    }
    calls = PyList_AsTuple(ctx.calls);
    if (calls == NULL) goto done;
    call_facts = call_facts_list(calls, ctx.src, ctx.src_len, f.body_iv, f.n_defs, decs, n_decs,
                                 PyTuple_GET_ITEM(env, E_CALLEE_CHAIN), names, rename,
                                 (PyTypeObject *)PyTuple_GET_ITEM(env, E_CALL));
    if (call_facts == NULL) goto done;
    Py_ssize_t end = PyList_GET_SIZE(f.lists[L_CALLS]);
    if (PyList_SetSlice(f.lists[L_CALLS], end, end, call_facts) < 0) goto done;
    if (others(&f) < 0) goto done;
    result = PyLong_FromUnsignedLong(error_row == UINT32_MAX ? 0 : (unsigned long)error_row + 1);
done:
    free_walk(&ctx);
    for (Py_ssize_t i = 0; i < f.n_defs; i++) Py_XDECREF(f.defs[i].local);
    PyMem_Free(f.defs);
    PyMem_Free(f.body_iv);
    PyMem_Free(f.full_iv);
    PyMem_Free(decs);
    for (int l = 0; l < LIST_COUNT; l++) Py_XDECREF(f.lists[l]);
    Py_XDECREF(f.local_scopes);
    Py_XDECREF(names);
    Py_XDECREF(rename);
    Py_XDECREF(calls);
    Py_XDECREF(call_facts);
    return result;
}

