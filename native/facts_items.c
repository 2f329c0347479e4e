/*
 * The fact engine's rule for assignments into and out of containers (see facts.c): what a
 * literal collection holds, what `x[k] = v` stores, what unpacking takes out. It follows the
 * query path's reference, indexer/lang/python/items.py, step for step: the same bindings and
 * references in the same order, the chain hooks asked for the same texts in the same order
 * (their caches decide which facts share a string, and marshal writes a shared one once).
 *
 * A literal collection assigned to a name binds the name to the container (value `lit:`)
 * and each item to it under its key (`item:KEY:VALUE`); a nested literal's items are bound
 * to the slot `NAME[KEY]`; `x[k] = v` binds `x[]`; unpacking binds `at:N:chain` or, from a
 * literal on the right, each target to its value. The value prefixes (`lit:`, `item:`,
 * `at:` for Python) are the language's, options of the engine (O_VALUE_*).
 */

#include "facts.h"

static inline bool is_container(uint8_t role) {
    return role == R_SEQUENCE || role == R_SET || role == R_MAPPING;
}

/* Whether an assignment stores into a container or takes out of one: a literal sequence,
 * set or mapping assigned to a name or member, or any value assigned to an unpacking
 * pattern or a subscript. */
bool holds_items(const Run *run, TSNode lhs, TSNode rhs) {
    switch (role_of(run, lhs)) {
    case R_NAME:
    case R_MEMBER:
        return is_container(role_of(run, rhs)) || role_of(run, rhs) == R_SUBSCRIPT;
    case R_PATTERN_TUPLE:
    case R_PATTERN_LIST:
    case R_SUBSCRIPT:
        return true;
    default:
        return false;
    }
}

/* `x`, or `self.x` (the self_member prefix and one name): the names whose values the
 * resolver follows. A new reference, Py_None, or NULL. */
static PyObject *target_of(Run *run, TSNode node) {
    uint8_t r = role_of(run, node);
    if (r == R_NAME) return decoded(run, node);
    if (r != R_MEMBER) return Py_NewRef(Py_None);
    PyObject *chain = hook_on_text(run, H_CHAIN, node);
    if (chain == NULL) return NULL;
    if (usable(chain) > 0 && one_member_of(chain, run->e->options[O_SELF_MEMBER])) return chain;
    Py_DECREF(chain);
    return Py_NewRef(Py_None);
}

/* the chain of a value that is a name, a member (*is_call false) or a call (true: its
 * callee's); Py_None for any other value; NULL with an exception */
static PyObject *value_of(Run *run, TSNode node, bool *is_call) {
    uint8_t r = role_of(run, node);
    *is_call = r == R_CALL;
    if (r == R_NAME || r == R_MEMBER) return hook_on_text(run, H_CHAIN, node);
    if (r != R_CALL) return Py_NewRef(Py_None);
    TSNode fn = field_of(run, node, F_CALLEE);
    return ts_node_is_null(fn) ? Py_NewRef(Py_None) : hook_on_text(run, H_CALLEE_CHAIN, fn);
}

/* `[\w.\-]{1,64}` in full (a str pattern's \w) */
static bool plain_key(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n < 1 || n > 64) return false;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!Py_UNICODE_ISALNUM(c) && c != '_' && c != '.' && c != '-') return false;
    }
    return true;
}

/* A key as written: an integer's digits, or a plain string's content (plain_key); "*" for
 * any other key (unknown). A new reference, NULL with an exception. */
static PyObject *key_of(Run *run, TSNode node) {
    if (ts_node_is_null(node)) return Py_NewRef(S_STAR);
    uint8_t r = role_of(run, node);
    if (r == R_INTEGER) {
        const char *ptr;
        Py_ssize_t len;
        span(run, node, &ptr, &len);
        for (Py_ssize_t i = 0; i < len; i++) {
            if (ptr[i] < '0' || ptr[i] > '9') return Py_NewRef(S_STAR);
        }
        return len ? PyUnicode_DecodeUTF8(ptr, len, NULL) : Py_NewRef(S_STAR);
    }
    if (r == R_STRING && ts_node_named_child_count(node) == 3) {
        TSNode content = ts_node_named_child(node, 1);
        if (role_of(run, content) == R_STRING_CONTENT) {
            const char *ptr;
            Py_ssize_t len;
            span(run, content, &ptr, &len);
            PyObject *text = PyUnicode_DecodeUTF8(ptr, len, "replace");
            if (text == NULL || plain_key(text)) return text;
            Py_DECREF(text);
        }
    }
    return Py_NewRef(S_STAR);
}

static int binding(Run *run, PyObject *scope, PyObject *name, PyObject *value, bool is_call,
                   PyObject *line) { /* steals value */
    PyObject *items[5] = {Py_NewRef(scope), Py_NewRef(name), value,
                          Py_NewRef(is_call ? Py_True : Py_False), Py_NewRef(line)};
    return append_fact(run, T_BINDING, 5, items);
}

static int value_reference(Run *run, PyObject *scope, PyObject *chain, PyObject *line) {
    PyObject *items[4] = {Py_NewRef(scope), Py_NewRef(chain), Py_NewRef(line),
                          Py_NewRef(S_VALUE)};
    return append_fact(run, T_REFERENCE, 4, items);
}

/* The named children of `node` but comments, in order (a TSTreeCursor: ts_node_named_child
 * starts from the first child each time). *out is PyMem_Malloc'd (free it); -1 on error. */
static Py_ssize_t items_of(TSNode node, const Run *run, TSNode **out) {
    uint32_t cap = ts_node_named_child_count(node);
    *out = PyMem_Malloc((cap ? cap : 1) * sizeof(TSNode));
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t n = 0;
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
        do {
            TSNode c = ts_tree_cursor_current_node(&cursor);
            if (ts_node_is_named(c) && role_of(run, c) != R_COMMENT && (uint32_t)n < cap)
                (*out)[n++] = c;
        } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
    return n;
}

/* Containers nested deeper than this keep their items unrecorded (items.py MAX_DEPTH: change
 * both): each level is a C frame here and a name one key longer, so 20,000 nested brackets
 * overflowed the stack, and a file of nesting n makes names of total length ~n^2. */
#define MAX_DEPTH 32

static int literal(Run *run, PyObject *scope, PyObject *name, TSNode lit, PyObject *line,
                   int depth);

/* One item stored under `key` (borrowed) in the container bound to `name`, `depth` containers
 * deep. */
static int item(Run *run, PyObject *scope, PyObject *name, PyObject *key, TSNode value,
                PyObject *line, int depth) {
    if (is_container(role_of(run, value))) {
        if (binding(run, scope, name, text_of("%U%U:[]", run->e->options[O_VALUE_ITEM], key), false, line) < 0)
            return -1;
        if (depth >= MAX_DEPTH) return 0;
        PyObject *slot = text_of("%U[%U]", name, key);
        if (slot == NULL) return -1;
        int rc = literal(run, scope, slot, value, line, depth + 1);
        Py_DECREF(slot);
        return rc;
    }
    bool is_call;
    PyObject *chain = value_of(run, value, &is_call);
    if (chain == NULL || chain == Py_None) {
        Py_XDECREF(chain);
        return chain == NULL ? -1 : 0;
    }
    int rc = binding(run, scope, name, text_of("%U%U:%U", run->e->options[O_VALUE_ITEM], key, chain), is_call,
                     line);
    /* a definition stored in a container is referenced from here */
    if (rc == 0 && !is_call) rc = value_reference(run, scope, chain, line);
    Py_DECREF(chain);
    return rc;
}

/* `name` bound to a literal collection (`lit:`) and its items under their keys: a mapping's
 * literal keys, a sequence's positions (unknown after a spread), none for a set */
static int literal(Run *run, PyObject *scope, PyObject *name, TSNode lit, PyObject *line,
                   int depth) {
    if (binding(run, scope, name, Py_NewRef(run->e->options[O_VALUE_LITERAL]), false, line) < 0) return -1;
    uint8_t kind = role_of(run, lit);
    TSNode *children;
    Py_ssize_t n = items_of(lit, run, &children);
    if (n < 0) return -1;
    int rc = 0;
    bool known = kind != R_SET;
    for (Py_ssize_t pos = 0; pos < n && rc == 0; pos++) {
        TSNode c = children[pos];
        PyObject *key;
        if (kind == R_MAPPING) {
            if (role_of(run, c) != R_PAIR) continue;
            TSNode value = field_of(run, c, F_VALUE);
            key = key_of(run, field_of(run, c, F_KEY));
            if (key == NULL) {
                rc = -1;
                break;
            }
            if (!ts_node_is_null(value)) rc = item(run, scope, name, key, value, line, depth);
            Py_DECREF(key);
            continue;
        }
        if (role_of(run, c) == R_ARGUMENT_SPLAT) {
            known = false; /* the items after a spread are at unknown positions */
            continue;
        }
        key = known ? text_of("%zd", pos) : Py_NewRef(S_STAR);
        rc = key == NULL ? -1 : item(run, scope, name, key, c, line, depth);
        Py_XDECREF(key);
    }
    PyMem_Free(children);
    return rc;
}

/* a returned literal collection (`return f, g`, `return {"go": f}`: items.py
 * RETURNED_LITERALS) */
bool returns_literal(const Run *run, TSNode value) {
    uint8_t r = role_of(run, value);
    return is_container(r) || r == R_SEQUENCE_BARE;
}

/* a literal collection a `for` iterates (items.py ITERATED_LITERALS: not a mapping, whose
 * iteration gives its keys) */
bool iterated_literal(const Run *run, TSNode value) {
    uint8_t r = role_of(run, value);
    return r == R_SEQUENCE || r == R_SET || r == R_SEQUENCE_BARE;
}

/* a literal collection passed as an argument that is bound to `arg$<start byte>`: one
 * holding among its items (a mapping's values) a name or a member whose head the file's
 * definitions or imports bind (items.py passes_items) */
bool passes_items(Run *run, TSNode lit) {
    uint8_t kind = role_of(run, lit);
    if (!is_container(kind)) return false;
    uint32_t n = ts_node_named_child_count(lit);
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(lit, i);
        if (kind == R_MAPPING) {
            if (role_of(run, c) != R_PAIR) continue;
            c = field_of(run, c, F_VALUE);
            if (ts_node_is_null(c)) continue;
        }
        uint8_t r = role_of(run, c);
        if ((r == R_NAME || r == R_MEMBER) && known_head(run, c)) return true;
    }
    return false;
}

/* `name` bound to the literal collection `lit` and its items (items.py literal_facts) */
int literal_facts(Run *run, PyObject *scope, PyObject *name, TSNode lit, PyObject *line) {
    return literal(run, scope, name, lit, line, 0);
}

/* `a, b = value`: from a literal on the right, each target its value (a starred one the
 * rest, as a literal list); from any other value, `at:N:chain` (its N-th item) */
static int unpack(Run *run, PyObject *scope, TSNode lhs, TSNode rhs, PyObject *line,
                  int depth) {
    TSNode *targets = NULL, *values = NULL;
    Py_ssize_t nt = items_of(lhs, run, &targets), nv = 0, star = -1;
    if (nt < 0) return -1;
    for (Py_ssize_t i = 0; i < nt && star < 0; i++) {
        if (role_of(run, targets[i]) == R_PARAMETER_SPLAT) star = i;
    }
    int rc = 0;
    uint8_t rr = role_of(run, rhs);
    if (rr == R_SEQUENCE || rr == R_SEQUENCE_BARE) {
        nv = items_of(rhs, run, &values);
        if (nv < 0) {
            rc = -1;
            goto done;
        }
        for (Py_ssize_t i = 0; i < nv; i++) {
            uint8_t vr = role_of(run, values[i]);
            if (vr == R_ARGUMENT_SPLAT || vr == R_SPLAT_PARENTHESIZED)
                goto done; /* positions on the right are not known */
        }
        if (nv != nt && (star < 0 || nv < nt - 1)) goto done; /* would raise at run time */
        Py_ssize_t after = star >= 0 ? nt - 1 - star : 0;
        for (Py_ssize_t i = 0; i < nt && rc == 0; i++) {
            TSNode t = targets[i];
            if (i == star) {
                PyObject *name = ts_node_named_child_count(t)
                                     ? target_of(run, ts_node_named_child(t, 0))
                                     : Py_NewRef(Py_None);
                if (name == NULL) {
                    rc = -1;
                    break;
                }
                if (name != Py_None) {
                    rc = binding(run, scope, name, Py_NewRef(run->e->options[O_VALUE_LITERAL]), false, line);
                    for (Py_ssize_t pos = 0; rc == 0 && pos < nv - after - i; pos++) {
                        PyObject *key = text_of("%zd", pos);
                        rc = key == NULL ? -1 : item(run, scope, name, key, values[i + pos], line, depth);
                        Py_XDECREF(key);
                    }
                }
                Py_DECREF(name);
                continue;
            }
            TSNode v = star < 0 || i < star ? values[i] : values[nv - after + i - star - 1];
            uint8_t tr = role_of(run, t);
            if (tr == R_PATTERN_TUPLE || tr == R_PATTERN_LIST) {
                /* `a, (b, c) = f, (g, h)`: the nested pattern unpacks its value */
                if (depth < MAX_DEPTH) rc = unpack(run, scope, t, v, line, depth + 1);
                continue;
            }
            PyObject *name = target_of(run, t);
            if (name == NULL) {
                rc = -1;
                break;
            }
            if (name != Py_None) {
                if (is_container(role_of(run, v))) {
                    rc = literal(run, scope, name, v, line, depth);
                } else {
                    bool is_call;
                    PyObject *chain = value_of(run, v, &is_call);
                    if (chain == NULL) {
                        rc = -1;
                    } else if (chain != Py_None) {
                        rc = binding(run, scope, name, Py_NewRef(chain), is_call, line);
                        if (rc == 0 && !is_call) rc = value_reference(run, scope, chain, line);
                    }
                    Py_XDECREF(chain);
                }
            }
            Py_DECREF(name);
        }
        goto done;
    }
    bool is_call;
    PyObject *chain = value_of(run, rhs, &is_call);
    if (chain == NULL || chain == Py_None) {
        rc = chain == NULL ? -1 : 0;
        Py_XDECREF(chain);
        goto done;
    }
    /* the positions from the end are not known without the length */
    for (Py_ssize_t i = 0; i < nt && rc == 0 && (star < 0 || i < star); i++) {
        PyObject *name = target_of(run, targets[i]);
        if (name == NULL) {
            rc = -1;
        } else if (name != Py_None) {
            rc = binding(run, scope, name, text_of("%U%zd:%U", run->e->options[O_VALUE_POSITION], i, chain), is_call,
                         line);
        }
        Py_XDECREF(name);
    }
    Py_DECREF(chain);
done:
    PyMem_Free(targets);
    PyMem_Free(values);
    return rc;
}

/* `x[k] = v` (`x[]`, also `self.x[]`): v stored under k in what x holds; `self.x[a][b] = v`
 * (a registry of registries): one of self.x's items at some depth, under no key */
static int store(Run *run, PyObject *scope, TSNode lhs, TSNode rhs, PyObject *line) {
    TSNode target = field_of(run, lhs, F_VALUE);
    PyObject *key = key_of(run, field_of(run, lhs, F_INDEX));
    if (key == NULL) return -1;
    PyObject *self_member = run->e->options[O_SELF_MEMBER];
    while (!ts_node_is_null(target) && role_of(run, target) == R_SUBSCRIPT) {
        target = field_of(run, target, F_VALUE);
        Py_SETREF(key, Py_NewRef(S_STAR));
        if (!ts_node_is_null(target) && role_of(run, target) != R_SUBSCRIPT) {
            PyObject *name = target_of(run, target);
            bool ok = name != NULL && name != Py_None && starts_with_str(name, self_member);
            if (name == NULL || !ok) {
                Py_XDECREF(name);
                Py_DECREF(key);
                return name == NULL ? -1 : 0;
            }
            Py_DECREF(name);
        }
    }
    PyObject *name = ts_node_is_null(target) ? Py_NewRef(Py_None) : target_of(run, target);
    int rc = name == NULL ? -1 : 0;
    if (name != NULL && name != Py_None) {
        PyObject *slot = text_of("%U[]", name);
        rc = slot == NULL ? -1 : item(run, scope, slot, key, rhs, line, 0);
        Py_XDECREF(slot);
    }
    Py_XDECREF(name);
    Py_DECREF(key);
    return rc;
}

/* `x = y[k]`: the item stored under k in what y holds, `key:K:chain` (K `*` for a key that
 * is not a plain literal; y a name, a member or a call, whose result is then subscripted) */
static int read_item(Run *run, PyObject *scope, TSNode lhs, TSNode rhs, PyObject *line) {
    TSNode base = field_of(run, rhs, F_VALUE), index = field_of(run, rhs, F_INDEX);
    if (ts_node_is_null(base) || ts_node_is_null(index)) return 0;
    switch (role_of(run, index)) { /* items.py _INDEXES: a slice is a part, not an item */
    case R_NAME:
    case R_MEMBER:
    case R_CALL:
    case R_SUBSCRIPT:
    case R_INTEGER:
    case R_STRING:
    case R_CONSTANT:
        break;
    default:
        return 0;
    }
    PyObject *name = target_of(run, lhs);
    if (name == NULL || name == Py_None) {
        Py_XDECREF(name);
        return name == NULL ? -1 : 0;
    }
    bool is_call;
    PyObject *chain = value_of(run, base, &is_call);
    int rc = chain == NULL ? -1 : 0;
    if (chain != NULL && chain != Py_None && usable(chain) > 0) {
        PyObject *key = key_of(run, index);
        rc = key == NULL ? -1
                         : binding(run, scope, name, text_of("key:%U:%U", key, chain),
                                   is_call, line);
        Py_XDECREF(key);
    }
    Py_XDECREF(chain);
    Py_DECREF(name);
    return rc;
}

/* The item facts of an assignment that holds_items, right after its own facts. */
int item_facts(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs) {
    PyObject *line = line_of(node);
    if (line == NULL) return -1;
    int rc = 0;
    uint8_t lr = role_of(run, lhs);
    if (lr == R_PATTERN_TUPLE || lr == R_PATTERN_LIST) {
        rc = unpack(run, scope, lhs, rhs, line, 0);
    } else if (lr == R_SUBSCRIPT) {
        rc = store(run, scope, lhs, rhs, line);
    } else if (role_of(run, rhs) == R_SUBSCRIPT) {
        /* (a declared type, `x: T = y[k]`, says more than the container's items) */
        if (ts_node_is_null(field_of(run, node, F_TYPE))) rc = read_item(run, scope, lhs, rhs, line);
    } else if (is_container(role_of(run, rhs)) && ts_node_is_null(field_of(run, node, F_TYPE))) {
        /* (a declared type, `x: list[T] = []`, says more than the literal's items) */
        PyObject *name = target_of(run, lhs);
        PyObject *names = run->e->options[O_NAMES_SUFFIX];
        if (name == NULL) {
            rc = -1;
        } else if (name != Py_None &&
                   (PyUnicode_GET_LENGTH(names) == 0 ||
                    PyUnicode_Tailmatch(name, names, 0, PY_SSIZE_T_MAX, 1) == 0)) {
            /* (`__all__`, `__slots__`: names, not values) */
            rc = literal(run, scope, name, rhs, line, 0);
        }
        Py_XDECREF(name);
    }
    Py_DECREF(line);
    return rc;
}
