/*
 * The fact engine's definitions and decorators (see facts.c): symbols in start order with
 * their dotted local names, heritage, declared return types and the scope intervals, then
 * the decorators' intervals and the calls of plain decorators.
 */

#include "facts.h"

/* ---- parts of a definition ---- */

/* `out` as a tuple (NULL after an error), the children it was read from freed */
static PyObject *tuple_of(TSNode *children, TSNode room[ROOM], PyObject *out, bool failed) {
    free_children(children, room);
    PyObject *result = failed ? NULL : PyList_AsTuple(out);
    Py_DECREF(out);
    return result;
}

/* "*" + the rest parameter's name (its first named child), or NULL with nothing to add */
static int append_splat(const Run *run, PyObject *out, TSNode p, bool need_name) {
    TSNode inner = first_named(p);
    if (ts_node_is_null(inner) || (need_name && role_of(run, inner) != R_NAME)) return 0;
    PyObject *d = decoded(run, inner);
    PyObject *star = d ? PyUnicode_Concat(S_STAR, d) : NULL;
    Py_XDECREF(d);
    return append_pair(out, star, Py_NewRef(S_EMPTY));
}

/* ((name, type text), ...) of the parameters: plain names, parameters with a name and a
 * type, rest parameters as "*name" */
static PyObject *params_of(const Run *run, TSNode def) {
    TSNode params = field_of(run, def, F_PARAMETERS);
    if (ts_node_is_null(params)) return PyTuple_New(0);
    TSNode room[ROOM];
    uint32_t count;
    TSNode *children = children_of(params, room, &count);
    if (children == NULL) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        free_children(children, room);
        return NULL;
    }
    for (uint32_t c = 0; c < count; c++) {
        TSNode p = children[c];
        if (!ts_node_is_named(p)) continue;
        uint8_t t = role_of(run, p);
        if (t == R_NAME) {
            if (append_pair(out, decoded(run, p), Py_NewRef(S_EMPTY)) < 0) goto error;
        } else if (t == R_PARAMETER) {
            TSNode name = field_of(run, p, F_NAME);
            if (ts_node_is_null(name)) { /* the first named name child */
                uint32_t k = ts_node_child_count(p);
                for (uint32_t i = 0; i < k; i++) {
                    TSNode c = ts_node_child(p, i);
                    if (ts_node_is_named(c) && role_of(run, c) == R_NAME) {
                        name = c;
                        break;
                    }
                }
            }
            TSNode typ = field_of(run, p, F_TYPE);
            uint8_t nc = ts_node_is_null(name) ? R_NONE : role_of(run, name);
            if (nc == R_NAME) {
                PyObject *ann =
                    ts_node_is_null(typ) ? Py_NewRef(S_EMPTY) : type_text_of(run, typ);
                if (append_pair(out, decoded(run, name), ann) < 0) goto error;
            } else if (nc == R_PARAMETER_SPLAT) {
                if (append_splat(run, out, name, false) < 0) goto error;
            }
        } else if (t == R_PARAMETER_SPLAT) {
            if (append_splat(run, out, p, true) < 0) goto error;
        }
    }
    return tuple_of(children, room, out, false);
error:
    return tuple_of(children, room, out, true);
}

/* the chains of a decorated wrapper's decorators, a call's marked with the `()` step
 * (`@app.route(...)` -> `app.route()`: what the call returns is applied to the definition) */
static PyObject *decorators_of(const Run *run, TSNode decorated) {
    TSNode room[ROOM];
    uint32_t count;
    TSNode *children = children_of(decorated, room, &count);
    if (children == NULL) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        free_children(children, room);
        return NULL;
    }
    for (uint32_t c = 0; c < count; c++) {
        TSNode dec = children[c];
        if (!ts_node_is_named(dec) || role_of(run, dec) != R_DECORATOR) continue;
        TSNode expr = first_named(dec);
        if (ts_node_is_null(expr)) continue;
        bool called = false;
        if (role_of(run, expr) == R_CALL) {
            TSNode fn = field_of(run, expr, F_CALLEE);
            if (!ts_node_is_null(fn)) {
                expr = fn;
                called = role_of(run, fn) != R_CALL;
            }
        }
        PyObject *chain = hook_on_text(run, H_CHAIN, expr);
        int ok = usable(chain);
        if (ok > 0 && called) {
            PyObject *marked = text_of("%U()", chain);
            Py_DECREF(chain);
            chain = marked;
            ok = chain != NULL ? 1 : -1;
        }
        if (ok < 0 || (ok && PyList_Append(out, chain) < 0)) {
            Py_XDECREF(chain);
            goto error;
        }
        Py_DECREF(chain);
    }
    return tuple_of(children, room, out, false);
error:
    return tuple_of(children, room, out, true);
}

/* a class's bases (keyword arguments left out, `Base[T]` read as `Base`) */
static int heritage_of(Run *run, TSNode node, PyObject *local) {
    TSNode supers = field_of(run, node, F_HERITAGE);
    if (ts_node_is_null(supers)) return 0;
    TSTreeCursor cursor = ts_tree_cursor_new(supers);
    int rc = 0;
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode arg = ts_tree_cursor_current_node(&cursor);
            if (!ts_node_is_named(arg)) continue;
            uint8_t t = role_of(run, arg);
            if (t == R_ARGUMENT_KEYWORD) continue;
            if (t == R_SUBSCRIPT) {
                TSNode value = field_of(run, arg, F_VALUE);
                if (!ts_node_is_null(value)) arg = value;
            }
            PyObject *chain = hook_on_text(run, H_CHAIN, arg);
            int ok = usable(chain);
            if (ok <= 0) {
                Py_XDECREF(chain);
                if (ok < 0) {
                    rc = -1;
                    break;
                }
                continue;
            }
            PyObject *items[4] = {Py_NewRef(local), chain, line_of(arg),
                                  Py_NewRef(run->e->options[O_HERITAGE_KIND])};
            if (append_fact(run, T_HERITAGE, 4, items) < 0) {
                rc = -1;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    return rc;
}

/* a function's declared return type, as a return fact `<type prefix>TYPE` */
static int return_type_of(Run *run, TSNode node, PyObject *local) {
    TSNode rtype = field_of(run, node, F_RETURN_TYPE);
    if (ts_node_is_null(rtype)) return 0;
    PyObject *t = type_text_of(run, rtype);
    if (t == NULL) return -1;
    PyObject *none = run->e->options[O_NONE_TYPE];
    if (PyUnicode_GET_LENGTH(t) == 0 ||
        (PyUnicode_GET_LENGTH(none) && PyUnicode_Compare(t, none) == 0)) {
        Py_DECREF(t);
        return 0;
    }
    PyObject *value = PyUnicode_Concat(run->e->options[O_TYPE_PREFIX], t);
    Py_DECREF(t);
    PyObject *items[4] = {Py_NewRef(local), value, Py_NewRef(Py_False), line_of(rtype)};
    return append_fact(run, T_RETURN, 4, items);
}

/* exported by the language's rule: "underscore" is `not _x, or __x__` */
static bool is_exported(const Run *run, PyObject *name) {
    if (PyUnicode_GET_LENGTH(run->e->options[O_EXPORT_RULE]) == 0) return true;
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n == 0 || PyUnicode_READ_CHAR(name, 0) != '_') return true;
    return n >= 2 && PyUnicode_READ_CHAR(name, 1) == '_' &&
           PyUnicode_READ_CHAR(name, n - 1) == '_' && PyUnicode_READ_CHAR(name, n - 2) == '_';
}

static int compare_defs(const void *a, const void *b) {
    const Def *x = a, *y = b;
    uint32_t sx = ts_node_start_byte(x->node), sy = ts_node_start_byte(y->node);
    if (sx != sy) return sx < sy ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* ---- the definitions ---- */

/* the local of the definition `d`, under its parent's (`#2`... for a name seen before) */
static PyObject *local_of(PyObject *seen, PyObject *parent_local, PyObject *name) {
    PyObject *local = PyUnicode_GET_LENGTH(parent_local)
                          ? text_of("%U.%U", parent_local, name)
                          : Py_NewRef(name);
    if (local == NULL) return NULL;
    PyObject *count = PyDict_GetItemWithError(seen, local);
    long k = count ? PyLong_AsLong(count) + 1 : 1;
    PyObject *kobj = PyErr_Occurred() ? NULL : PyLong_FromLong(k);
    if (kobj == NULL || PyDict_SetItem(seen, local, kobj) < 0) {
        Py_XDECREF(kobj);
        Py_DECREF(local);
        return NULL;
    }
    Py_DECREF(kobj);
    if (k > 1) Py_SETREF(local, text_of("%U#%ld", local, k));
    return local;
}

/* The parent of `node` found down from `from`, a node holding it (ts_node_parent walks
 * down from the root, past every statement of the module before it: for a method, from its
 * class's body is the shorter way); ts_node_parent's answer when `from` does not hold it. */
static TSNode parent_below(TSNode from, TSNode node) {
    TSNode parent = from;
    for (;;) {
        TSNode next = ts_node_child_with_descendant(parent, node);
        if (ts_node_is_null(next)) return ts_node_parent(node);
        if (next.id == node.id) return parent;
        parent = next;
    }
}

/* one definition's symbol (and heritage or return type), `name` stolen; `holder`: the body
 * of the definition it is in (null at the module's level) */
static int symbol_of(Run *run, Def *d, PyObject *name, uint32_t start, TSNode holder) {
    const FactEngine *e = run->e;
    TSNode outer = d->node; /* a decorated definition starts at its first decorator */
    TSNode up = ts_node_is_null(holder) ? ts_node_parent(d->node) : parent_below(holder, d->node);
    if (!ts_node_is_null(up) && role_of(run, up) == R_DECORATED) outer = up;
    bool function_like = d->kind == K_FUNCTION || d->kind == K_METHOD;
    PyObject *params = function_like ? params_of(run, d->node) : PyTuple_New(0);
    PyObject *decorators = ts_node_eq(outer, d->node) ? PyTuple_New(0) : decorators_of(run, outer);
    /* source[start : body.start_byte], clamped as Python slices */
    Py_ssize_t from = start < run->src_len ? (Py_ssize_t)start : run->src_len;
    Py_ssize_t to = (Py_ssize_t)ts_node_start_byte(d->body);
    if (to > run->src_len) to = run->src_len;
    const char *strip = PyUnicode_AsUTF8(e->options[O_SIGNATURE_STRIP]);
    PyObject *signature =
        strip ? squeezed(run->src + from, to > from ? to - from : 0, true, strip) : NULL;
    PyObject *prefix = d->kind == K_CLASS ? e->options[O_TEST_CLASS]
                       : function_like    ? e->options[O_TEST_FUNCTION]
                                          : S_EMPTY;
    bool is_test = starts_with_str(name, prefix);
    PyObject *kind = d->kind == K_CLASS      ? e->kinds[V_DEFINITION_CLASS]
                     : d->kind == K_METHOD   ? e->kinds[V_DEFINITION_METHOD]
                     : d->kind == K_FUNCTION ? e->kinds[V_DEFINITION_FUNCTION]
                                             : e->kinds[d->vocab];
    PyObject *items[12] = {
        Py_NewRef(d->local),
        Py_NewRef(kind),
        name,
        PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(outer).row + 1),
        PyLong_FromUnsignedLong((unsigned long)ts_node_end_point(d->node).row + 1),
        PyLong_FromUnsignedLong(ts_node_start_byte(outer)),
        PyLong_FromUnsignedLong(ts_node_end_byte(d->node)),
        signature,
        Py_NewRef(is_exported(run, name) ? Py_True : Py_False),
        Py_NewRef(is_test ? Py_True : Py_False),
        params,
        decorators,
    };
    if (append_fact(run, T_SYMBOL, 12, items) < 0) return -1;
    if (d->kind == K_CLASS) return heritage_of(run, d->node, d->local);
    if (function_like) return return_type_of(run, d->node, d->local);
    return 0;
}

int definitions(Run *run) {
    Py_ssize_t n = run->n_defs;
    qsort(run->defs, (size_t)n, sizeof(Def), compare_defs);
    run->body_iv = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Interval));
    run->full_iv = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Interval));
    Py_ssize_t *stack = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(Py_ssize_t));
    PyObject *seen = PyDict_New();
    int rc = -1;
    if (run->body_iv == NULL || run->full_iv == NULL || stack == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (seen == NULL) goto done;
    Py_ssize_t depth = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Def *d = &run->defs[i];
        uint32_t start = ts_node_start_byte(d->node);
        while (depth > 0 && ts_node_end_byte(run->defs[stack[depth - 1]].node) <= start) depth--;
        Py_ssize_t parent = depth > 0 ? stack[depth - 1] : -1;
        PyObject *parent_local = parent >= 0 ? run->defs[parent].local : S_EMPTY;
        PyObject *name = decoded(run, d->name);
        if (name == NULL) goto done;
        d->local = local_of(seen, parent_local, name); /* owned by the def from here */
        if (d->local == NULL) {
            Py_DECREF(name);
            goto done;
        }
        /* a function directly inside a class is a method */
        if (d->kind == K_FUNCTION && parent >= 0 && run->defs[parent].kind == K_CLASS)
            d->kind = K_METHOD;
        run->body_iv[i] = (Interval){ts_node_start_byte(d->body), ts_node_end_byte(d->body),
                                     parent, d->local};
        run->full_iv[i] = (Interval){start, ts_node_end_byte(d->node), parent, d->local};
        stack[depth++] = i;
        TSNode holder = parent >= 0 ? run->defs[parent].body : (TSNode){0};
        if (symbol_of(run, d, name, start, holder) < 0) goto done;
    }
    rc = 0;
done:
    PyMem_Free(stack);
    Py_XDECREF(seen);
    return rc;
}

/* ---- decorators ---- */

Py_ssize_t def_at_start(const Run *run, uint32_t start) {
    Py_ssize_t lo = 0, hi = run->n_defs;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        uint32_t s = ts_node_start_byte(run->defs[mid].node);
        if (s == start) return mid;
        if (s < start) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return -1;
}

static int compare_intervals(const void *a, const void *b) {
    const Interval *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* Decorators, and the calls in their arguments, count for the decorated definition (kind
 * "decorator": the resolver looks their names up where the definition stands). */
int decorators(Run *run) {
    size_t count = run->n_decorators;
    run->decs = PyMem_Malloc((count ? count : 1) * sizeof(Interval));
    if (run->decs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t n = 0;
    for (size_t i = 0; i < count; i++) {
        TSNode dec = part_of(run, run->decorators[i], V_DECORATOR);
        TSNode up = parent_of(run, dec); /* (the definitions' intervals are made) */
        TSNode target = ts_node_is_null(up) ? (TSNode){0} : field_of(run, up, F_DEFINITION);
        PyObject *scope;
        if (!ts_node_is_null(target)) {
            Py_ssize_t d = def_at_start(run, ts_node_start_byte(target));
            scope = d >= 0 ? run->defs[d].local : S_EMPTY;
        } else {
            scope = scope_at(run->body_iv, run->n_defs, ts_node_start_byte(dec));
        }
        TSNode expr = first_named(dec);
        if (ts_node_is_null(expr)) continue;
        run->decs[n++] = (Interval){ts_node_start_byte(dec), ts_node_end_byte(dec), -1, scope};
        if (role_of(run, expr) == R_CALL) continue;
        PyObject *chain = hook_on_text(run, H_CALLEE_CHAIN, expr);
        int ok = usable(chain);
        if (ok <= 0) {
            Py_XDECREF(chain);
            if (ok < 0) return -1;
            continue;
        }
        PyObject *items[6] = {Py_NewRef(scope), chain,          line_of(expr),
                              Py_NewRef(S_DECORATOR), PyTuple_New(0), PyTuple_New(0)};
        if (append_fact(run, T_CALL, 6, items) < 0) return -1;
    }
    qsort(run->decs, (size_t)n, sizeof(Interval), compare_intervals);
    run->n_decs = n;
    return 0;
}
