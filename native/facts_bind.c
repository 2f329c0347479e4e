/*
 * The fact engine's rules for calls, imports, assignments and returns (see facts.c).
 */

#include "facts.h"

/* ---- calls ---- */

/* A literal argument's text (CallFact.literals): a constant as written (`True`), or the content
 * of a string quoted by one character each side (no prefix, no triple quotes) when it is a
 * chain (a name or dotted name); None otherwise. A new reference, NULL with an exception. */
static PyObject *literal_text(Run *run, TSNode a, uint8_t role) {
    if (role == R_CONSTANT) return hook_on_text(run, H_CHAIN, a);
    if (ts_node_child_count(a) != 3) return Py_NewRef(Py_None);
    TSNode open = ts_node_child(a, 0);
    if (ts_node_end_byte(open) - ts_node_start_byte(open) != 1) return Py_NewRef(Py_None);
    return hook_on_text(run, H_CHAIN, ts_node_child(a, 1));
}

/* The chain of an argument that is a name or a member (`a.b`): 1 with `*chain` set (a new
 * reference) when it is non-empty, 0 when the hook gives an empty one (nothing to bind, skipped),
 * -1 with an exception. */
static int chain_of(Run *run, TSNode node, PyObject **chain) {
    *chain = hook_on_text(run, H_CHAIN, node);
    if (*chain == NULL) return -1;
    int truthy = PyObject_IsTrue(*chain);
    if (truthy <= 0) Py_CLEAR(*chain);
    return truthy;
}

/* ((position or keyword, chain), ...) for the arguments that are plain names or members, and
 * ((position or keyword, text), ...) for the literal ones (literal_text); positions after a
 * spread argument are unknown. Sets both tuples (new references); -1 with an exception. */
/* (key, value) pairs gathered for a tuple of them */
typedef struct {
    PyObject *room[8];
    PyObject **items;
    Py_ssize_t n, cap; /* cap 0: the room */
} Pairs;

/* takes `key` and `value` (NULL: an error set, the other dropped) */
static int add_pair(Pairs *p, PyObject *key, PyObject *value) {
    PyObject *pair = new_pair(key, value);
    if (pair == NULL) return -1;
    Py_ssize_t cap = p->cap ? p->cap : (Py_ssize_t)(sizeof p->room / sizeof p->room[0]);
    if (p->n == cap) {
        PyObject **items = PyMem_Malloc(2 * (size_t)cap * sizeof(PyObject *));
        if (items == NULL) {
            Py_DECREF(pair);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(items, p->items, (size_t)p->n * sizeof(PyObject *));
        if (p->cap) PyMem_Free(p->items);
        p->items = items;
        p->cap = 2 * cap;
    }
    p->items[p->n++] = pair;
    return 0;
}

/* add_pair when `text` is a non-empty str (both dropped otherwise): 0, -1 on error */
static int add_if_text(Pairs *p, PyObject *key, PyObject *text) {
    int truthy = text == NULL ? -1 : PyObject_IsTrue(text);
    if (truthy <= 0) {
        Py_XDECREF(key);
        Py_XDECREF(text);
        return truthy;
    }
    return add_pair(p, key, text);
}

static void pairs_free(Pairs *p) {
    for (Py_ssize_t i = 0; i < p->n; i++) Py_DECREF(p->items[i]);
    if (p->cap) PyMem_Free(p->items);
    p->n = p->cap = 0;
}

/* the pairs as a tuple (emptied); NULL with an exception */
static PyObject *pairs_tuple(Pairs *p) {
    PyObject *t = PyTuple_New(p->n);
    if (t == NULL) {
        pairs_free(p);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < p->n; i++) PyTuple_SET_ITEM(t, i, p->items[i]);
    p->n = 0;
    pairs_free(p);
    return t;
}

static int call_args(Run *run, TSNode args, PyObject **names_out, PyObject **literals_out) {
    if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0 ||
        role_of(run, args) != R_ARGUMENTS) {
        *names_out = PyTuple_New(0);
        *literals_out = PyTuple_New(0);
        return *names_out && *literals_out ? 0 : -1;
    }
    TSNode room[ROOM];
    uint32_t count;
    TSNode *children = children_of(args, room, &count);
    /* (pairs gathered as the tuples they end in: two lists a call were ~6 ms of Django) */
    Pairs names = {.items = names.room}, lits = {.items = lits.room};
    Pairs *out = &names;
    if (children == NULL) goto error;
    long long pos = 0;
    for (uint32_t c = 0; c < count; c++) {
        TSNode a = children[c];
        if (!ts_node_is_named(a)) continue;
        uint8_t role = role_of(run, a);
        switch (role) {
        case R_NAME:
        case R_MEMBER: {
            PyObject *chain;
            int got = chain_of(run, a, &chain);
            if (got < 0) goto error;
            if (got && pos >= 0) {
                if (add_pair(out, PyLong_FromLongLong(pos), chain) < 0) goto error;
            } else if (got) {
                Py_DECREF(chain);
            }
            pos += 1;
            break;
        }
        case R_STRING:
        case R_CONSTANT:
            if (pos >= 0 && add_if_text(&lits, PyLong_FromLongLong(pos),
                                           literal_text(run, a, role)) < 0)
                goto error;
            pos += 1;
            break;
        case R_SEQUENCE:
        case R_SET:
        case R_MAPPING:
            /* a literal collection passed: `arg$<start byte>`, bound by call_fact */
            if (pos >= 0 && passes_items(run, a) &&
                add_pair(out, PyLong_FromLongLong(pos),
                            text_of("%U%u", run->e->options[O_LOCAL_PASSED], ts_node_start_byte(a))) < 0)
                goto error;
            pos += 1;
            break;
        case R_ARGUMENT_KEYWORD: {
            TSNode name = field_of(run, a, F_NAME);
            TSNode value = field_of(run, a, F_VALUE);
            if (ts_node_is_null(name) || ts_node_is_null(value)) break;
            uint8_t vr = role_of(run, value);
            if (vr == R_STRING || vr == R_CONSTANT) {
                if (add_if_text(&lits, decoded(run, name), literal_text(run, value, vr)) < 0)
                    goto error;
                break;
            }
            if (vr == R_SEQUENCE || vr == R_SET || vr == R_MAPPING) {
                if (passes_items(run, value) &&
                    add_pair(out, decoded(run, name),
                                text_of("%U%u", run->e->options[O_LOCAL_PASSED], ts_node_start_byte(value))) < 0)
                    goto error;
                break;
            }
            if (vr != R_NAME && vr != R_MEMBER) break;
            PyObject *chain;
            int got = chain_of(run, value, &chain);
            if (got < 0 || (got && add_pair(out, decoded(run, name), chain) < 0)) goto error;
            break;
        }
        case R_ARGUMENT_SPLAT:
            pos = -(1LL << 30);
            break;
        case R_ARGUMENT_KEYWORD_SPLAT: {
            /* `f(**opts)`: (the spread key, chain) for a name or a member */
            TSNode v = first_named(a);
            uint8_t vr = ts_node_is_null(v) ? R_NONE : role_of(run, v);
            if (vr != R_NAME && vr != R_MEMBER) break;
            PyObject *chain;
            int got = chain_of(run, v, &chain);
            if (got < 0 ||
                (got && add_pair(out, Py_NewRef(run->e->options[O_ARGUMENT_SPREAD]), chain) < 0))
                goto error;
            break;
        }
        default:
            pos += 1;
        }
    }
    free_children(children, room);
    *names_out = pairs_tuple(&names);
    *literals_out = pairs_tuple(&lits);
    if (*names_out != NULL && *literals_out != NULL) return 0;
    Py_CLEAR(*names_out);
    Py_CLEAR(*literals_out);
    return -1;
error:
    if (children != NULL) free_children(children, room);
    pairs_free(&names);
    pairs_free(&lits);
    return -1;
}

/* The arguments of every call first, in match order: the chain hooks' caches then see the
 * texts in the order the query path of the extraction before this engine asked for them,
 * so that the same strings stay shared between facts and caches (marshal writes a string
 * with other references as a reference, so the blobs depend on it). A call's literals are
 * at n_calls past its arguments. */
int call_arguments(Run *run) {
    size_t n = run->n_calls;
    run->arguments = PyMem_Calloc(n ? 2 * n : 1, sizeof(PyObject *));
    if (run->arguments == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        TSNode args = run->call_parts[2 * i + 1];
        if (call_args(run, args, &run->arguments[i], &run->arguments[n + i]) < 0) return -1;
    }
    return 0;
}

/* The length of the name a chain starts with (`[A-Za-z_]\w*` of a str pattern); 0 when it
 * starts with none. */
static Py_ssize_t head_length(PyObject *chain) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
    int kind = PyUnicode_KIND(chain);
    const void *data = PyUnicode_DATA(chain);
    if (n == 0 || !is_name_start(PyUnicode_READ(kind, data, 0))) return 0;
    Py_ssize_t i = 1;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c != '_' && !Py_UNICODE_ISALNUM(c)) break;
        i++;
    }
    return i;
}

/* Whether the local scopes' `rename(chain, start)` may return anything but `chain`: only
 * for a chain whose head is one of their names (one without a head, or not a str, is left
 * to rename too). 1 or 0, -1 with an exception. */
static int may_rename(PyObject *chain, PyObject *names) {
    if (PySet_GET_SIZE(names) == 0) return 0;
    Py_ssize_t h;
    if (!PyUnicode_Check(chain) || (h = head_length(chain)) == 0) return 1;
    if (PySet_GET_SIZE(names) <= 8) {
        /* a few names (a file's comprehension and lambda variables): compared in place,
           without a substring to make and hash */
        Py_ssize_t pos = 0;
        PyObject *name;
        Py_hash_t hash;
        while (_PySet_NextEntry(names, &pos, &name, &hash)) {
            if (!PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) != h) continue;
            int same = PyUnicode_Tailmatch(chain, name, 0, h, -1);
            if (same != 0) return same; /* 1, or -1 with an exception */
        }
        return 0;
    }
    PyObject *head = PyUnicode_Substring(chain, 0, h); /* chain itself when all of it */
    if (head == NULL) return -1;
    int found = PySet_Contains(names, head);
    Py_DECREF(head);
    return found;
}

/* The chain of a callee that has none, kept so that the site counts as unresolved: "?." +
 * the name at the end of the text (rb"([A-Za-z_]\w*)\s*$"), "?" when it ends in none */
static PyObject *unknown_chain(const char *text, Py_ssize_t len) {
    Py_ssize_t end = len;
    while (end > 0 && is_space_byte((unsigned char)text[end - 1])) end--;
    Py_ssize_t start = end;
    while (start > 0 && is_word_byte((unsigned char)text[start - 1])) start--;
    while (start < end && !is_name_start((unsigned char)text[start])) start++; /* digits */
    if (start == end) return Py_NewRef(S_UNKNOWN);
    PyObject *chain = PyUnicode_New(2 + end - start, 127);
    if (chain == NULL) return NULL;
    Py_UCS1 *data = PyUnicode_1BYTE_DATA(chain);
    data[0] = '?';
    data[1] = '.';
    memcpy(data + 2, text + start, (size_t)(end - start));
    return chain;
}

/* `chain` (stolen; NULL or None pass through) as the local scopes' `rename(chain, start)`
 * gives it where one of them binds its head (a comprehension's variable) */
PyObject *local_chain(Run *run, PyObject *chain, Py_ssize_t start) {
    if (chain == NULL || chain == Py_None) return chain;
    int renamed = may_rename(chain, run->scope_names);
    if (renamed > 0) {
        PyObject *at = PyLong_FromSsize_t(start);
        PyObject *argv[2] = {chain, at};
        Py_SETREF(chain, at ? PyObject_Vectorcall(run->rename, argv, 2, NULL) : NULL);
        Py_XDECREF(at);
    } else if (renamed < 0) {
        Py_CLEAR(chain);
    }
    return chain;
}

/* The literal collections a call passes (call_args's `arg$N` arguments, in `args`), each
 * bound to its name in `scope` at the call's line (query_facts.py, after _args). */
static int passed_literals(Run *run, PyObject *scope, TSNode node, PyObject *args,
                           PyObject *line) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    /* an argument is bound below only under a name `arg$<start>` (call_args's), so a call
       none of whose names starts so (most) needs no second walk over its arguments */
    PyObject *prefix = run->e->options[O_LOCAL_PASSED];
    Py_ssize_t named = 0;
    for (Py_ssize_t i = 0; i < n && named == 0; i++) {
        PyObject *name = PyTuple_GET_ITEM(PyTuple_GET_ITEM(args, i), 1);
        if (!PyUnicode_Check(name)) continue;
        named = PyUnicode_Tailmatch(name, prefix, 0, PY_SSIZE_T_MAX, -1);
        if (named < 0) return -1;
    }
    if (named == 0) return 0;
    TSNode room[ROOM];
    uint32_t count;
    TSNode *children = children_of(node, room, &count);
    if (children == NULL) return -1;
    int rc = 0;
    for (uint32_t c = 0; c < count && rc == 0; c++) {
        TSNode a = children[c];
        if (!ts_node_is_named(a)) continue;
        if (role_of(run, a) == R_ARGUMENT_KEYWORD) a = field_of(run, a, F_VALUE);
        if (ts_node_is_null(a) || !passes_items(run, a)) continue;
        PyObject *want = text_of("%U%u", run->e->options[O_LOCAL_PASSED], ts_node_start_byte(a));
        if (want == NULL) {
            rc = -1;
            break;
        }
        for (Py_ssize_t i = 0; i < n; i++) { /* the name object the argument holds */
            PyObject *name = PyTuple_GET_ITEM(PyTuple_GET_ITEM(args, i), 1);
            if (PyUnicode_Compare(name, want) == 0) {
                rc = literal_facts(run, scope, name, a, line);
                break;
            }
        }
        Py_DECREF(want);
    }
    free_children(children, room);
    return rc;
}

/* a call: its scope (a decorator's when inside one), its callee's chain (renamed where a
 * local scope binds its head), its line and its arguments */
int call_fact(Run *run, size_t i) {
    TSNode callee = run->call_parts[2 * i];
    PyObject *args = run->arguments[i]; /* (call_arguments's, stolen) */
    PyObject *literals = run->arguments[run->n_calls + i];
    run->arguments[i] = run->arguments[run->n_calls + i] = NULL;
    if (args == NULL || literals == NULL) {
        Py_XDECREF(args);
        Py_XDECREF(literals);
        PyErr_SetString(PyExc_SystemError, "a call without its arguments");
        return -1;
    }
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(callee);
    Py_ssize_t end = (Py_ssize_t)ts_node_end_byte(callee);
    run->callees[2 * i] = start;
    run->callees[2 * i + 1] = end;
    if (start > end || end > run->src_len) {
        Py_DECREF(args);
        Py_DECREF(literals);
        PyErr_SetString(PyExc_ValueError, "a callee span outside of the source");
        return -1;
    }
    PyObject *scope, *kind;
    Py_ssize_t d = last_starting_at(run->decs, run->n_decs, start);
    if (d >= 0 && start < run->decs[d].end) {
        scope = run->decs[d].local;
        kind = S_DECORATOR;
    } else {
        scope = scope_at(run->body_iv, run->n_defs, start);
        kind = S_CALL;
    }
    PyObject *chain;
    if (run->e->native_callee_chain) {
        chain = callee_chain_of_span(run->src + start, end - start);
    } else {
        PyObject *text = PyBytes_FromStringAndSize(run->src + start, end - start);
        chain = text ? call_text_hook(run->e, H_CALLEE_CHAIN, text) : NULL;
        Py_XDECREF(text);
    }
    chain = local_chain(run, chain, start);
    if (chain == Py_None) Py_SETREF(chain, unknown_chain(run->src + start, end - start));
    PyObject *line = chain == NULL ? NULL : line_of(callee);
    if (line == NULL || passed_literals(run, scope, run->call_parts[2 * i + 1], args,
                                        line) < 0) {
        Py_XDECREF(chain);
        Py_XDECREF(line);
        Py_DECREF(args);
        Py_DECREF(literals);
        return -1;
    }
    PyObject *items[6] = {Py_NewRef(scope), chain, line, Py_NewRef(kind), args, literals};
    return append_fact(run, T_CALL, 6, items);
}

/* ---- imports ---- */

static int import_fact(Run *run, PyObject *scope, PyObject *module, PyObject *level,
                       PyObject *name, PyObject *alias, PyObject *line) {
    PyObject *items[6] = {Py_NewRef(scope), module, level, name, alias, Py_NewRef(line)};
    return append_fact(run, T_IMPORT, 6, items);
}

/* `child.child_by_field_name(which).text.decode()`, raising as Python would on None */
static PyObject *field_text(const Run *run, TSNode node, int which) {
    TSNode c = field_of(run, node, which);
    if (ts_node_is_null(c)) {
        PyErr_SetString(PyExc_AttributeError, "'NoneType' object has no attribute 'text'");
        return NULL;
    }
    return decoded(run, c);
}

/* one imported name: `import a.b [as c]` (module NULL) or `from m import x [as y]` */
static int import_name(Run *run, TSNode child, PyObject *scope, PyObject *module,
                       PyObject *level, PyObject *line) {
    PyObject *name, *alias;
    if (role_of(run, child) == R_IMPORT_ALIASED) {
        name = field_text(run, child, F_NAME);
        alias = name ? field_text(run, child, F_ALIAS) : NULL;
        if (alias == NULL) {
            Py_XDECREF(name);
            return -1;
        }
    } else {
        name = decoded(run, child);
        if (name == NULL) return -1;
        alias = Py_NewRef(S_EMPTY);
    }
    if (module == NULL) /* import: the name is the module */
        return import_fact(run, scope, name, PyLong_FromLong(0), Py_NewRef(S_EMPTY), alias,
                           line);
    return import_fact(run, scope, Py_NewRef(module), Py_NewRef(level), name, alias, line);
}

/* an import: `import a.b as c, d` or `from ..m import x as y, *` */
int imports_of(Run *run, TSNode node, bool from) {
    PyObject *scope = scope_at(run->body_iv, run->n_defs, ts_node_start_byte(node));
    PyObject *line = line_of(node);
    if (line == NULL) return -1;
    PyObject *module = Py_NewRef(S_EMPTY), *level = PyLong_FromLong(0);
    int rc = -1;
    if (from) {
        TSNode mod = field_of(run, node, F_MODULE);
        if (!ts_node_is_null(mod) && role_of(run, mod) == R_IMPORT_RELATIVE) {
            uint32_t k = ts_node_child_count(mod);
            for (uint32_t i = 0; i < k; i++) {
                TSNode c = ts_node_child(mod, i);
                uint8_t t = role_of(run, c);
                if (t == R_IMPORT_PREFIX) {
                    Py_SETREF(level,
                              PyLong_FromUnsignedLong(ts_node_end_byte(c) - ts_node_start_byte(c)));
                    if (level == NULL) goto done;
                } else if (t == R_IMPORT_PATH) {
                    Py_SETREF(module, decoded(run, c));
                    if (module == NULL) goto done;
                }
            }
        } else if (!ts_node_is_null(mod)) {
            Py_SETREF(module, decoded(run, mod));
            if (module == NULL) goto done;
        }
    }
    bool any_name = false, wildcard = false;
    TSFieldId f_name = run->e->fields[F_NAME];
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode child = ts_tree_cursor_current_node(&cursor);
            if (f_name && ts_tree_cursor_current_field_id(&cursor) == f_name) {
                any_name = true;
                if (import_name(run, child, scope, from ? module : NULL, level, line) < 0) {
                    ts_tree_cursor_delete(&cursor);
                    goto done;
                }
            } else if (role_of(run, child) == R_IMPORT_WILDCARD) {
                wildcard = true;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    if (from && !any_name && wildcard) {
        if (import_fact(run, scope, Py_NewRef(module), Py_NewRef(level), Py_NewRef(S_STAR),
                        Py_NewRef(S_EMPTY), line) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_DECREF(line);
    Py_XDECREF(module);
    Py_XDECREF(level);
    return rc;
}

/* ---- assignments ---- */

/* a module variable's symbol, once per name (the statement's span; its first line is the
 * signature) */
static int module_var(Run *run, PyObject *name, TSNode node) {
    int has = PySet_Contains(run->module_vars, name);
    if (has != 0) return has < 0 ? -1 : 0;
    if (PySet_Add(run->module_vars, name) < 0) return -1;
    TSNode up = ts_node_parent(node);
    TSNode stmt = !ts_node_is_null(up) && role_of(run, up) == R_STATEMENT ? up : node;
    const char *ptr;
    Py_ssize_t len;
    span(run, stmt, &ptr, &len);
    const char *nl = memchr(ptr, '\n', (size_t)len);
    if (nl != NULL) len = nl - ptr;
    bool exported = PyUnicode_GET_LENGTH(run->e->options[O_EXPORT_RULE]) == 0 ||
                    PyUnicode_GET_LENGTH(name) == 0 || PyUnicode_READ_CHAR(name, 0) != '_';
    PyObject *items[12] = {
        Py_NewRef(name),
        Py_NewRef(S_VARIABLE),
        Py_NewRef(name),
        PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(stmt).row + 1),
        PyLong_FromUnsignedLong((unsigned long)ts_node_end_point(stmt).row + 1),
        PyLong_FromUnsignedLong(ts_node_start_byte(stmt)),
        PyLong_FromUnsignedLong(ts_node_end_byte(stmt)),
        squeezed(ptr, len, false, NULL),
        Py_NewRef(exported ? Py_True : Py_False),
        Py_NewRef(Py_False),
        PyTuple_New(0),
        PyTuple_New(0),
    };
    return append_fact(run, T_SYMBOL, 12, items);
}

/* name = rhs: `f(...)` binds what f returns, a name or member binds (and refers to) it;
 * `a or b` binds what a would (a when it is true: `params or []`) */
static int bind_value(Run *run, PyObject *scope, PyObject *name, TSNode rhs, TSNode node) {
    while (role_of(run, rhs) == R_OPERATOR_BOOLEAN) {
        TSNode op = field_of(run, rhs, F_OPERATOR), left = field_of(run, rhs, F_LEFT);
        if (ts_node_is_null(op) || ts_node_is_null(left) ||
            role_of(run, op) != R_OPERATOR_EITHER)
            break;
        rhs = left;
    }
    PyObject *line = line_of(node);
    if (line == NULL) return -1;
    int rc = 0;
    uint8_t t = role_of(run, rhs);
    if (t == R_CALL) {
        TSNode fn = field_of(run, rhs, F_CALLEE);
        if (!ts_node_is_null(fn)) {
            PyObject *chain = hook_on_text(run, H_CALLEE_CHAIN, fn);
            int ok = usable(chain);
            if (ok > 0) {
                PyObject *items[5] = {Py_NewRef(scope), Py_NewRef(name), chain,
                                      Py_NewRef(Py_True), Py_NewRef(line)};
                rc = append_fact(run, T_BINDING, 5, items);
            } else {
                Py_XDECREF(chain);
                rc = ok;
            }
        }
    } else if (t == R_NAME || t == R_MEMBER) {
        PyObject *chain = hook_on_text(run, H_CHAIN, rhs);
        int ok = usable(chain);
        if (ok > 0) {
            PyObject *items[5] = {Py_NewRef(scope), Py_NewRef(name), Py_NewRef(chain),
                                  Py_NewRef(Py_False), Py_NewRef(line)};
            rc = append_fact(run, T_BINDING, 5, items);
            PyObject *refs[4] = {Py_NewRef(scope), chain, Py_NewRef(line), Py_NewRef(S_VALUE)};
            if (rc == 0) {
                rc = append_fact(run, T_REFERENCE, 4, refs);
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

/* Whether `chain` is `prefix` and one more name (`self.x` for the prefix `self.`). */
bool one_member_of(PyObject *chain, PyObject *prefix) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain), start = PyUnicode_GET_LENGTH(prefix);
    if (start == 0 || !starts_with_str(chain, prefix)) return false;
    for (Py_ssize_t i = start; i < n; i++) {
        if (PyUnicode_READ_CHAR(chain, i) == '.') return false;
    }
    return true;
}

/* the name an assignment target binds: a name, or `self.x` (the option's member prefix
 * and one name); `cls.x` (the class_member prefix: a classmethod's, such as unittest's
 * setUpClass) binds the same attribute, so it is named `self.x` too; a new reference,
 * Py_None, or NULL */
static PyObject *target_name(Run *run, TSNode lhs) {
    uint8_t t = role_of(run, lhs);
    if (t == R_NAME) return decoded(run, lhs);
    PyObject *prefix = run->e->options[O_SELF_MEMBER];
    if (t != R_MEMBER || PyUnicode_GET_LENGTH(prefix) == 0) return Py_NewRef(Py_None);
    PyObject *chain = hook_on_text(run, H_CHAIN, lhs);
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok < 0 ? NULL : Py_NewRef(Py_None);
    }
    if (one_member_of(chain, prefix)) return chain;
    PyObject *class_prefix = run->e->options[O_CLASS_MEMBER];
    PyObject *out = Py_NewRef(Py_None);
    if (one_member_of(chain, class_prefix)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
        PyObject *attr = PyUnicode_Substring(chain, PyUnicode_GET_LENGTH(class_prefix), n);
        Py_SETREF(out, attr ? PyUnicode_Concat(prefix, attr) : NULL);
        Py_XDECREF(attr);
    }
    Py_DECREF(chain);
    return out;
}

int assignment(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs) {
    bool module_scope = PyUnicode_GET_LENGTH(scope) == 0;
    uint8_t lt = role_of(run, lhs);
    if (lt == R_PATTERN_TUPLE) { /* unpacking: no single value to bind */
        if (!module_scope) return 0;
        uint32_t k = ts_node_child_count(lhs);
        for (uint32_t i = 0; i < k; i++) {
            TSNode t = ts_node_child(lhs, i);
            if (!ts_node_is_named(t) || role_of(run, t) != R_NAME) continue;
            PyObject *name = decoded(run, t);
            if (name == NULL) return -1;
            int rc = module_var(run, name, node);
            Py_DECREF(name);
            if (rc < 0) return -1;
        }
        return 0;
    }
    PyObject *name = target_name(run, lhs);
    if (name == NULL) return -1;
    if (name == Py_None) {
        Py_DECREF(name);
        return 0;
    }
    int rc = -1;
    if (module_scope && lt == R_NAME) {
        if (module_var(run, name, node) < 0) goto done;
        PyObject *exports = run->e->options[O_EXPORTS_NAME];
        if (role_of(run, rhs) == R_SEQUENCE && PyUnicode_GET_LENGTH(exports) &&
            PyUnicode_Compare(name, exports) == 0) {
            /* the language reads the exported names from the value */
            PyObject *rhs_node = new_node(run->like, rhs);
            if (rhs_node == NULL) goto done;
            PyObject *r = PyObject_CallFunctionObjArgs(run->e->hooks[H_EXPORTS_VALUE], run->facts,
                                                       rhs_node, run->source, NULL);
            Py_DECREF(rhs_node);
            if (r == NULL) goto done;
            Py_DECREF(r);
        }
    }
    while (role_of(run, rhs) == R_ASSIGNMENT) { /* a = b = value: bind the innermost value */
        TSNode right = field_of(run, rhs, F_RIGHT);
        if (ts_node_is_null(right)) break;
        rhs = right;
    }
    rc = bind_value(run, scope, name, rhs, node);
done:
    Py_DECREF(name);
    return rc;
}

/* ---- returns ---- */

int return_fact(Run *run, TSNode value) {
    Py_ssize_t i = scope_index(run->body_iv, run->n_defs, ts_node_start_byte(value));
    if (i < 0 || (run->defs[i].kind != K_FUNCTION && run->defs[i].kind != K_METHOD)) return 0;
    PyObject *chain;
    PyObject *is_call;
    if (returns_literal(run, value)) {
        /* the function's K-th returned literal, bound to `ret$K` (no identifier spells it)
         * and returned by that name (query_facts.py _returned_literal) */
        PyObject *scope = run->defs[i].local;
        PyObject *name = text_of("%U%u", run->e->options[O_LOCAL_RETURNED],
                                              run->defs[i].literal_returns++);
        PyObject *line = line_of(value);
        if (name == NULL || line == NULL || literal_facts(run, scope, name, value, line) < 0) {
            Py_XDECREF(name);
            Py_XDECREF(line);
            return -1;
        }
        PyObject *items[4] = {Py_NewRef(scope), name, Py_NewRef(Py_False), line};
        return append_fact(run, T_RETURN, 4, items);
    }
    if (role_of(run, value) == R_CALL) {
        TSNode fn = field_of(run, value, F_CALLEE);
        if (ts_node_is_null(fn)) return 0;
        chain = hook_on_text(run, H_CALLEE_CHAIN, fn);
        is_call = Py_True;
    } else {
        chain = hook_on_text(run, H_CHAIN, value);
        is_call = Py_False;
    }
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok;
    }
    PyObject *items[4] = {Py_NewRef(run->defs[i].local), chain, Py_NewRef(is_call),
                          line_of(value)};
    return append_fact(run, T_RETURN, 4, items);
}

/* ---- member reads ---- */

/* Whether a member read as a value is read by no other fact: not the operand of a longer
 * chain or the callee of a call (the call's chain reads it), not an assignment's target (a
 * setter runs) or the value a name is bound to (the binding's reference reads it), not an
 * argument (the call's arguments are read with it), a decorator or a type. */
static bool read_elsewhere(const Run *run, TSNode node, TSNode parent) {
    switch (role_of(run, parent)) {
    case R_MEMBER:
    case R_ARGUMENTS:
    case R_ARGUMENT_KEYWORD:
    case R_DECORATOR:
    case R_TYPE:
        return true;
    case R_CALL:
        return ts_node_eq(field_of(run, parent, F_CALLEE), node);
    case R_ASSIGNMENT: {
        TSNode right = field_of(run, parent, F_RIGHT);
        if (!ts_node_eq(right, node)) return true; /* the target (or its type) */
        TSNode left = field_of(run, parent, F_LEFT);
        return !ts_node_is_null(left) && role_of(run, left) == R_NAME;
    }
    default:
        return false;
    }
}

/* a member read as a value (`if obj.p:`, `f"{obj.p}"`, `obj.p + 1`): a reference of kind
 * "read" to its chain (a property's getter may run), in the scope it is read in */
int member_read(Run *run, TSNode node, TSNode parent) {
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(node);
    Py_ssize_t end = (Py_ssize_t)ts_node_end_byte(node);
    /* a member at the start of the one before it (in match order, outer first) is inside
     * its chain (`a.b` in `a.b.c`, `a.b[k].c`, `a.b().c`), which reads it: no parent lookup
     * for most of them */
    if (start == run->member_start && end < run->member_end) return 0;
    run->member_start = start;
    run->member_end = end;
    /* a callee (most members are): the call's chain reads it, as read_elsewhere finds
     * through the parent, without the parent lookup */
    const Py_ssize_t *c = run->callees;
    while (run->next_callee < run->n_calls && c[2 * run->next_callee] < start) run->next_callee++;
    for (size_t j = run->next_callee; j < run->n_calls && c[2 * j] == start; j++) {
        if (c[2 * j + 1] == end) return 0;
    }
    if (ts_node_is_null(parent)) parent = parent_of(run, node);
    if (ts_node_is_null(parent) || read_elsewhere(run, node, parent)) return 0;
    PyObject *chain = local_chain(run, hook_on_text(run, H_CALLEE_CHAIN, node), start);
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok;
    }
    PyObject *scope = scope_at(run->body_iv, run->n_defs, start);
    PyObject *items[4] = {Py_NewRef(scope), chain, line_of(node), Py_NewRef(S_READ)};
    return append_fact(run, T_REFERENCE, 4, items);
}
