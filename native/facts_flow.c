/*
 * The fact engine's rules for the bindings of statements that are no plain assignment (see
 * facts.c): what a `with` item enters, what a loop or a comprehension binds its variables
 * to, and the store into a member. They follow the query path's reference step for step
 * (indexer/lang/python/bindings.py `_with_binding`, `_for_binding`, `_member_assignment`,
 * reached through query_facts.py `_other`): the same bindings in the same order, the chain
 * hooks asked for the same texts in the same order (their caches decide which facts share a
 * string, and marshal writes a shared one once).
 *
 * The value prefixes (`enter:`, `aenter:`, `iter:N:`, `set:` for Python) are the language's:
 * the forms of binding values its resolver reads, options of the engine (O_VALUE_*), as
 * facts_items.c's are.
 * These rules ran as the `other` hook before: Node objects for every capture, and two
 * parent lookups from the root per `with` item (most of that hook's cost over Django).
 */

#include "facts.h"

/* appends BindingFact(scope, name, value, is_call, line); steals name, value and line (the
 * bindings of one statement share one line object, as the reference's do: marshal writes
 * a shared int once) */
static int binding(Run *run, PyObject *scope, PyObject *name, PyObject *value, bool is_call,
                   PyObject *line) {
    PyObject *items[5] = {Py_NewRef(scope), name, value, Py_NewRef(is_call ? Py_True : Py_False),
                          line};
    return append_fact(run, T_BINDING, 5, items);
}

/* prefix + chain (a new str), NULL with an exception; steals chain */
static PyObject *prefixed(PyObject *prefix, PyObject *chain) {
    PyObject *out = PyUnicode_Concat(prefix, chain);
    Py_DECREF(chain);
    return out;
}

/* Whether the statement a `with` item belongs to (its clause's parent) starts with the
 * async keyword: `stmt.children[0].type == "async"`. */
static bool in_async_statement(const Run *run, TSNode item) {
    TSNode clause = parent_of(run, item);
    if (ts_node_is_null(clause)) return false;
    TSNode stmt = parent_of(run, clause);
    return !ts_node_is_null(stmt) && ts_node_child_count(stmt) > 0 &&
           role_of(run, ts_node_child(stmt, 0)) == R_KEYWORD_ASYNC;
}

/* `with EXPR [as name]` (binding.context): name is what EXPR's __enter__ returns (`aenter:`
 * under `async with`). Every item is a binding, named "" when nothing plain is bound (`with
 * lock:`, `with f() as (a, b):`): the resolver reads the managers entered from these. */
int context_binding(Run *run, PyObject *scope, TSNode node, TSNode value) {
    PyObject *name = Py_NewRef(S_EMPTY);
    if (role_of(run, value) == R_PATTERN_AS) {
        TSNode target = field_of(run, value, F_ALIAS);
        TSNode inner = ts_node_is_null(target) ? target : first_named(target);
        if (!ts_node_is_null(inner) && role_of(run, inner) == R_NAME) {
            Py_SETREF(name, decoded(run, inner));
            if (name == NULL) return -1;
        }
        value = first_named(value);
        if (ts_node_is_null(value)) {
            Py_DECREF(name);
            return 0;
        }
    }
    PyObject *prefix = run->e->options[in_async_statement(run, node) ? O_VALUE_ENTER_ASYNC
                                                                    : O_VALUE_ENTER];
    PyObject *chain = NULL;
    bool is_call = false;
    uint8_t r = role_of(run, value);
    if (r == R_CALL) {
        TSNode fn = field_of(run, value, F_CALLEE);
        if (!ts_node_is_null(fn)) chain = hook_on_text(run, H_CALLEE_CHAIN, fn);
        else chain = Py_NewRef(Py_None);
        is_call = true;
    } else if (r == R_NAME || r == R_MEMBER) {
        chain = hook_on_text(run, H_CHAIN, value);
    } else {
        chain = Py_NewRef(Py_None);
    }
    int ok = usable(chain);
    if (ok <= 0) {
        Py_XDECREF(chain);
        Py_DECREF(name);
        return ok;
    }
    return binding(run, scope, name, prefixed(prefix, chain), is_call, line_of(node));
}

/* `for x in chain` (binding.iteration) binds x to `iter:-1:chain`, the names of a tuple
 * target to `iter:N:chain` (N: its position among the target's named children); a
 * comprehension's (binding.comprehension, `comprehension` true) are named
 * `x$<start byte of the comprehension>` and its chain is renamed where an enclosing
 * comprehension binds its head. */
int iteration_binding(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs,
                      bool comprehension) {
    PyObject *suffix = NULL;
    if (comprehension) {
        TSNode comp = parent_of(run, node);
        suffix = ts_node_is_null(comp)
                     ? Py_NewRef(S_EMPTY)
                     : text_of("$%u", ts_node_start_byte(comp));
        if (suffix == NULL) return -1;
    }
    PyObject *chain = hook_on_text(run, H_CALLEE_CHAIN, rhs);
    int ok = usable(chain);
    if (ok > 0 && comprehension) {
        chain = local_chain(run, chain, (Py_ssize_t)ts_node_start_byte(rhs));
        ok = usable(chain);
    }
    PyObject *line = NULL;
    if (ok == 0 && iterated_literal(run, rhs)) {
        /* `for f in (load, save)`: the literal bound to `it$<start byte>`, iterated by it */
        Py_XDECREF(chain);
        chain = text_of("%U%u", run->e->options[O_LOCAL_ITERATED],
                                     ts_node_start_byte(rhs));
        line = line_of(lhs);
        ok = chain == NULL || line == NULL || literal_facts(run, scope, chain, rhs, line) < 0
                 ? -1
                 : 1;
    }
    if (ok <= 0) {
        Py_XDECREF(chain);
        Py_XDECREF(suffix);
        Py_XDECREF(line);
        return ok;
    }
    PyObject *iter = run->e->options[O_VALUE_ITERATION];
    if (line == NULL) line = line_of(lhs);
    int rc = line == NULL ? -1 : 0;
    uint8_t lr = role_of(run, lhs);
    if (rc == 0 && lr == R_NAME) {
        PyObject *name = decoded(run, lhs);
        if (name != NULL && suffix != NULL) Py_SETREF(name, PyUnicode_Concat(name, suffix));
        PyObject *value = name ? text_of("%U-1:%U", iter, chain) : NULL;
        rc = binding(run, scope, name, value, false, Py_NewRef(line)); /* (NULLs: an error) */
    } else if (rc == 0 && lr == R_PATTERN_TUPLE) {
        uint32_t k = ts_node_named_child_count(lhs);
        for (uint32_t i = 0; i < k && rc == 0; i++) {
            TSNode t = ts_node_named_child(lhs, i);
            if (role_of(run, t) != R_NAME) continue;
            PyObject *name = decoded(run, t);
            if (name != NULL && suffix != NULL) Py_SETREF(name, PyUnicode_Concat(name, suffix));
            PyObject *value = name ? text_of("%U%u:%U", iter, i, chain) : NULL;
            rc = binding(run, scope, name, value, false, Py_NewRef(line));
        }
    }
    Py_XDECREF(line);
    Py_DECREF(chain);
    Py_XDECREF(suffix);
    return rc;
}

/* `obj.attr = v` (assignment.member): a binding named "" whose value `set:obj.attr` says a
 * member is written (the resolver finds the setter or descriptor that runs) */
int member_store(Run *run, PyObject *scope, TSNode node, TSNode lhs) {
    PyObject *chain = hook_on_text(run, H_CHAIN, lhs);
    int ok = usable(chain);
    if (ok > 0) { /* `"." in chain` */
        Py_ssize_t dot = PyUnicode_FindChar(chain, '.', 0, PyUnicode_GET_LENGTH(chain), 1);
        ok = dot == -2 ? -1 : dot >= 0;
    }
    if (ok <= 0) {
        Py_XDECREF(chain);
        return ok;
    }
    return binding(run, scope, Py_NewRef(S_EMPTY), prefixed(run->e->options[O_VALUE_STORE], chain), false, line_of(node));
}
