/*
 * index_calls' loop over a Python file's calls (indexer/lang/python/index.py `_index_calls`,
 * the reference and the fallback): every call site of the files whose call tables a
 * resolution reads passes here (~0.26 cpu-s of a Django build's resolve phase in Python, its
 * host and worker each making their own). The rules are index.py's, written out in the same
 * order, so that every table, set and list is filled in the same order; a change there is
 * made here too (tests/test_core_calls.py compares every table the two make).
 */

#include "core.h"

enum { S_KIND = 1, S_PARAMS = 10, S_DECORATORS = 11 }; /* SymbolFact's (index.py _LAYOUT) */

static PyObject *s_class, *s_function, *s_method, *s_empty, *s_decorator, *s_staticmethod;

static int init_strings(void) {
    if (s_staticmethod != NULL) return 0;
    struct {
        PyObject **slot;
        const char *text;
    } all[] = {{&s_class, "class"},   {&s_function, "function"},   {&s_method, "method"},
               {&s_empty, ""},        {&s_decorator, "decorator"}, {&s_staticmethod, "staticmethod"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(all[i].text);
        if (s == NULL) return -1;
        *all[i].slot = s;
    }
    return 0;
}

enum { C_SCOPE = 0, C_CALLEE = 1, C_LINE = 2, C_KIND = 3, C_ARGS = 4, C_LITERALS = 5 };
enum { K_KEPT, K_ADDERS, K_PASSES_ON, K_STORED_BY_CALL, K_REGISTERED, K_CALL_FACT, K_COUNT };
enum {
    U_SYMS, U_PARAMS, U_PARENT, U_NAMES, U_PARAM_ATTRS, U_LITERAL, U_DECORATOR, U_NAME_CALLS,
    U_PASS_THROUGH, U_PARAM_CALLS, U_PARAM_ITEM_CALLS, U_ATTR_CALLS, U_PARAM_PASSES,
    U_ATTR_PASSES, U_COUNT
};
static const char *const CALL_TABLES[U_COUNT] = {
    "syms", "params", "parent", "names", "param_attrs", "literal_calls", "decorator_calls",
    "name_calls", "pass_through", "param_calls", "param_item_calls", "attr_calls",
    "param_passes", "attr_passes"};

/* whether a symbol fact's kind is `a` or `b` (1, 0, -1) */
static int kind_is(PyObject *sym, PyObject *a, PyObject *b) {
    if (!fact_ok(sym, S_KIND + 1)) return -1;
    PyObject *kind = PyTuple_GET_ITEM(sym, S_KIND);
    int eq = PyUnicode_Compare(kind, a) == 0 || (b != NULL && PyUnicode_Compare(kind, b) == 0);
    return PyErr_Occurred() ? -1 : eq;
}

/* index.py param_owner: the function whose parameter `name` is, seen from `scope` (borrowed),
 * or NULL (also on error: check PyErr_Occurred) */
static PyObject *param_owner(PyObject **u, PyObject *scope, PyObject *name) {
    PyObject *s = scope;
    while (str_ok(s) && PyUnicode_GET_LENGTH(s)) {
        PyObject *sym = PyDict_GetItemWithError(u[U_SYMS], s);
        int fn = sym != NULL ? kind_is(sym, s_function, s_method) : 0;
        if (fn <= 0) return NULL;
        PyObject *ps = PyDict_GetItemWithError(u[U_PARAMS], s);
        int in = ps != NULL ? PySequence_Contains(ps, name) : PyErr_Occurred() ? -1 : 0;
        if (in) return in > 0 ? s : NULL;
        PyObject *ns = PyDict_GetItemWithError(u[U_NAMES], s); /* rebound locally */
        in = ns != NULL ? PySequence_Contains(ns, name) : PyErr_Occurred() ? -1 : 0;
        if (in) return NULL;
        s = get_or(u[U_PARENT], s, s_empty);
        if (s == NULL) return NULL;
    }
    return NULL;
}

/* index.py _method_class: the class whose method `scope` is, or is a closure in (borrowed),
 * or NULL (also on error) */
static PyObject *method_class(PyObject **u, PyObject *scope) {
    PyObject *s = scope;
    while (str_ok(s) && PyUnicode_GET_LENGTH(s)) {
        PyObject *up = get_or(u[U_PARENT], s, s_empty);
        PyObject *sym = up != NULL ? PyDict_GetItemWithError(u[U_SYMS], up) : NULL;
        if (sym != NULL) {
            int cls = kind_is(sym, s_class, NULL);
            if (cls) return cls > 0 ? up : NULL;
        } else if (PyErr_Occurred()) {
            return NULL;
        }
        s = up;
    }
    return NULL;
}

#define WORD_START(ch) ((((ch) | 32) >= 'a' && ((ch) | 32) <= 'z') || (ch) == '_')

/* `[A-Za-z_]\w*` from i (ASCII): where it ends, or -1 */
static Py_ssize_t ident_end(const char *s, Py_ssize_t i, Py_ssize_t n) {
    if (i >= n || !WORD_START(s[i])) return -1;
    while (i < n && (WORD_START(s[i]) || (s[i] >= '0' && s[i] <= '9'))) i++;
    return i;
}

/* exports.py passes_on for an ASCII callee (its regex, whose \w is [A-Za-z0-9_] there): a
 * plain name or what it returns, or a method of self/cls/super() */
static int passes_on_ascii(const char *s, Py_ssize_t n) {
    Py_ssize_t e = ident_end(s, 0, n);
    if (e == n || (e > 0 && e + 2 == n && s[e] == '(' && s[e + 1] == ')')) return 1;
    static const char *const heads[] = {"self.", "cls.", "super()."};
    for (int i = 0; i < 3; i++) {
        Py_ssize_t k = (Py_ssize_t)strlen(heads[i]);
        if (n > k && memcmp(s, heads[i], (size_t)k) == 0 && ident_end(s, k, n) == n) return 1;
    }
    return 0;
}

static int passes_on(PyObject *hook, PyObject *callee) {
    if (PyUnicode_IS_ASCII(callee))
        return passes_on_ascii((const char *)PyUnicode_1BYTE_DATA(callee),
                               PyUnicode_GET_LENGTH(callee));
    PyObject *r = PyObject_CallOneArg(hook, callee);
    int yes = r != NULL ? PyObject_IsTrue(r) : -1;
    Py_XDECREF(r);
    return yes;
}

/* `table.setdefault(k1, {}).setdefault(k2, set()).add(v)` */
static int add_to_set(PyObject *table, PyObject *k1, PyObject *k2, PyObject *v) {
    PyObject *inner = setdefault_new(table, k1, 0);
    PyObject *set = inner != NULL ? setdefault_new(inner, k2, 2) : NULL;
    return set != NULL ? PySet_Add(set, v) : -1;
}

/* `table.setdefault(k1, {}).setdefault(k2, []).append((scope, callee, key, line))` */
static int add_pass(PyObject *table, PyObject *k1, PyObject *k2, PyObject *call, PyObject *key) {
    PyObject *inner = setdefault_new(table, k1, 0);
    PyObject *list = inner != NULL ? setdefault_new(inner, k2, 1) : NULL;
    PyObject *row = list != NULL ? PyTuple_Pack(4, PyTuple_GET_ITEM(call, C_SCOPE),
                                                PyTuple_GET_ITEM(call, C_CALLEE), key,
                                                PyTuple_GET_ITEM(call, C_LINE))
                                 : NULL;
    int rc = row != NULL ? PyList_Append(list, row) : -1;
    Py_XDECREF(row);
    return rc;
}

/* `(scope, name) in d`: d[(scope, name)] (borrowed) or NULL (also on error) */
static PyObject *pair_get(PyObject *d, PyObject *scope, PyObject *name) {
    if (PyDict_GET_SIZE(d) == 0) return NULL;
    PyObject *key = PyTuple_Pack(2, scope, name);
    PyObject *v = key != NULL ? PyDict_GetItemWithError(d, key) : NULL;
    Py_XDECREF(key);
    return v;
}

/* `callee.startswith("self.") and callee.count(".") == 1` */
static int self_attr_chain(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    return starts(s, "self.") && PyUnicode_FindChar(s, '.', 5, n, 1) == -1;
}

/* the names of ARGUMENTS_KEPT and ADDERS, matched against an ASCII callee's last part without
 * making it a str (a hash of each): whether kept, the adder's position (borrowed) */
typedef struct {
    const char *text;
    Py_ssize_t len;
    int kept;
    PyObject *adder;
} Tail;
enum { TAILS_MAX = 32 };

static int tail_add(Tail *tails, int n, PyObject *name, int kept, PyObject *adder) {
    Py_ssize_t len;
    const char *text = str_ok(name) ? PyUnicode_AsUTF8AndSize(name, &len) : NULL;
    if (text == NULL) return -1;
    if (n < TAILS_MAX) tails[n] = (Tail){text, len, kept, adder};
    return n + 1;
}

/* the kit's names as tails: how many, more than TAILS_MAX when they do not fit, -1 on error */
static int tails_of(PyObject **k, Tail *tails) {
    int n = 0;
    Py_ssize_t pos = 0;
    Py_hash_t hash;
    PyObject *name, *adder;
    while (n >= 0 && _PySet_NextEntry(k[K_KEPT], &pos, &name, &hash)) {
        adder = PyDict_GetItemWithError(k[K_ADDERS], name);
        n = adder != NULL || !PyErr_Occurred() ? tail_add(tails, n, name, 1, adder) : -1;
    }
    pos = 0;
    while (n >= 0 && PyDict_Next(k[K_ADDERS], &pos, &name, &adder)) {
        int kept = PySet_Contains(k[K_KEPT], name);
        n = kept < 0 ? -1 : kept ? n : tail_add(tails, n, name, 0, adder);
    }
    return n;
}

/* the last part of `callee` (past `dot`) among the tails: whether kept, the adder (borrowed) */
static int tail_rule(PyObject **k, const Tail *tails, int nt, PyObject *callee, Py_ssize_t dot,
                     int *kept, PyObject **adder) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(callee);
    *kept = 0;
    *adder = NULL;
    if (nt <= TAILS_MAX && PyUnicode_IS_ASCII(callee)) {
        const char *last = (const char *)PyUnicode_1BYTE_DATA(callee) + dot + 1;
        Py_ssize_t len = n - dot - 1;
        for (int i = 0; i < nt; i++) {
            if (tails[i].len == len && memcmp(tails[i].text, last, (size_t)len) == 0) {
                *kept = tails[i].kept;
                *adder = tails[i].adder;
                break;
            }
        }
        return 0;
    }
    PyObject *last = PyUnicode_Substring(callee, dot + 1, n);
    *kept = last != NULL ? PySet_Contains(k[K_KEPT], last) : -1;
    *adder = *kept >= 0 ? PyDict_GetItemWithError(k[K_ADDERS], last) : NULL;
    Py_XDECREF(last);
    return *kept < 0 || PyErr_Occurred() ? -1 : 0;
}

/* a call site: the call as read (a CallFact, or marshal's plain tuple of one: FileFacts
 * plain_calls) and, once a table keeps it or a helper reads it, as a CallFact (`made`) */
typedef struct {
    PyObject *call, *made;
    PyTypeObject *type;
} Site;

/* the site's call as a CallFact (borrowed), or NULL on error */
static PyObject *site_fact(Site *site) {
    PyObject *c = site->call;
    if (Py_TYPE(c) == site->type) return c;
    if (site->made == NULL) {
        Py_ssize_t n = PyTuple_GET_SIZE(c);
        PyObject *made = site->type->tp_alloc(site->type, n);
        if (made == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(made, i, Py_NewRef(PyTuple_GET_ITEM(c, i)));
        site->made = made;
    }
    return site->made;
}

/* `table.setdefault(key, []).append(the site's CallFact)` */
static int keep_site(PyObject *table, PyObject *key, Site *site) {
    PyObject *list = setdefault_new(table, key, 1);
    PyObject *fact = list != NULL ? site_fact(site) : NULL;
    return fact != NULL ? PyList_Append(list, fact) : -1;
}

/* the head's rules (index.py: a call with arguments) */
static int call_heads(PyObject **u, PyObject **k, const Tail *tails, int nt, PyObject *fi,
                      Site *site) {
    PyObject *c = site->call;
    PyObject *scope = PyTuple_GET_ITEM(c, C_SCOPE), *callee = PyTuple_GET_ITEM(c, C_CALLEE);
    int deco = PyUnicode_Compare(PyTuple_GET_ITEM(c, C_KIND), s_decorator) == 0;
    if (PyErr_Occurred()) return -1;
    if (deco && keep_site(u[U_DECORATOR], scope, site) < 0) return -1;
    PyObject *sym = PyDict_GetItemWithError(u[U_SYMS], callee);
    int fn = sym != NULL ? kind_is(sym, s_function, NULL) : PyErr_Occurred() ? -1 : 0;
    if (fn < 0) return -1;
    if (fn && keep_site(u[U_NAME_CALLS], callee, site) < 0) return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(callee);
    Py_ssize_t dot = PyUnicode_FindChar(callee, '.', 0, n, -1);
    if (dot == -2) return -1;
    int rc = -1, kept;
    PyObject *adder, *head = NULL;
    if (tail_rule(k, tails, nt, callee, dot, &kept, &adder) < 0) return -1;
    if (kept) {
        PyObject *key = PyTuple_Pack(2, scope, PyTuple_GET_ITEM(c, C_LINE));
        PyObject *list = key != NULL ? setdefault_new(u[U_PASS_THROUGH], key, 1) : NULL;
        PyObject *row = list != NULL ? PyTuple_Pack(2, callee, PyTuple_GET_ITEM(c, C_ARGS)) : NULL;
        int bad = row == NULL || PyList_Append(list, row) < 0;
        Py_XDECREF(key);
        Py_XDECREF(row);
        if (bad) goto done;
    }
    if (adder != NULL) { /* (rare: the Python helpers, which read a CallFact) */
        head = PyUnicode_Substring(callee, 0, dot < 0 ? 0 : dot);
        c = head != NULL ? site_fact(site) : NULL;
        if (c == NULL) goto done;
        Py_ssize_t hn = PyUnicode_GET_LENGTH(head);
        if (!kept && hn && PyUnicode_FindChar(head, '(', 0, hn, 1) == -1 &&
            PyUnicode_FindChar(head, '[', 0, hn, 1) == -1) {
            PyObject *r = PyObject_CallFunctionObjArgs(k[K_STORED_BY_CALL], fi, c, head, adder, NULL);
            if (r == NULL) goto done;
            Py_DECREF(r);
        }
        if (starts(head, "self.")) {
            PyObject *r = PyObject_CallFunctionObjArgs(k[K_REGISTERED], fi, c, head, adder, NULL);
            if (r == NULL) goto done;
            Py_DECREF(r);
        }
    }
    rc = 0;
done:
    Py_XDECREF(head);
    return rc;
}

/* the callee's rules: what a parameter, an alias of one, `self.x` or an item of one holds runs */
static int call_callee(PyObject **u, PyObject *c, PyObject *param_names, PyObject *param_items,
                       PyObject *aliases, PyObject *item_aliases) {
    PyObject *scope = PyTuple_GET_ITEM(c, C_SCOPE), *callee = PyTuple_GET_ITEM(c, C_CALLEE);
    int in = PySet_Contains(param_names, callee);
    if (in) {
        PyObject *owner = in > 0 ? param_owner(u, scope, callee) : NULL;
        if (owner == NULL) return PyErr_Occurred() ? -1 : 0;
        return add_to_set(u[U_PARAM_CALLS], owner, callee, scope);
    }
    if (PyDict_GET_SIZE(u[U_PARAM_ATTRS]) && self_attr_chain(callee)) {
        PyObject *cls = method_class(u, scope);
        in = cls != NULL ? PyDict_Contains(u[U_PARAM_ATTRS], cls) : PyErr_Occurred() ? -1 : 0;
        if (in <= 0) return in;
        PyObject *attr_name = PyUnicode_Substring(callee, 5, PyUnicode_GET_LENGTH(callee));
        int rc = attr_name != NULL ? add_to_set(u[U_ATTR_CALLS], cls, attr_name, scope) : -1;
        Py_XDECREF(attr_name);
        return rc;
    }
    PyObject *pname = pair_get(aliases, scope, callee);
    if (pname != NULL) return add_to_set(u[U_PARAM_CALLS], scope, pname, scope);
    if (PyErr_Occurred()) return -1;
    /* `items[0]()` calls `items[]` (param_items: the parameters' names with "[]"; most
       callees end otherwise, and a set lookup of a str made anew hashes it) */
    Py_ssize_t cn = PyUnicode_GET_LENGTH(callee);
    in = cn > 2 && PyUnicode_READ_CHAR(callee, cn - 1) == ']' &&
                 PyUnicode_READ_CHAR(callee, cn - 2) == '['
             ? PySet_Contains(param_items, callee)
             : 0;
    if (in) {
        PyObject *held =
            in > 0 ? PyUnicode_Substring(callee, 0, PyUnicode_GET_LENGTH(callee) - 2) : NULL;
        PyObject *owner = held != NULL ? param_owner(u, scope, held) : NULL;
        int rc = owner != NULL ? add_to_set(u[U_PARAM_ITEM_CALLS], owner, held, scope)
                               : PyErr_Occurred() ? -1 : 0;
        Py_XDECREF(held);
        return rc;
    }
    pname = pair_get(item_aliases, scope, callee);
    if (pname != NULL) return add_to_set(u[U_PARAM_ITEM_CALLS], scope, pname, scope);
    return PyErr_Occurred() ? -1 : 0;
}

/* whether exports.py value_parameters(sym) holds `chain`: a parameter of the function but a
 * method's first (self, cls), unless it is a staticmethod (1, 0, -1) */
static int value_parameter(PyObject *sym, PyObject *chain) {
    if (!fact_ok(sym, S_DECORATORS + 1)) return -1;
    PyObject *params = PyTuple_GET_ITEM(sym, S_PARAMS);
    if (!PyTuple_Check(params)) {
        PyErr_SetString(PyExc_TypeError, "index_calls_pass: params");
        return -1;
    }
    Py_ssize_t from = 0, cn = PyUnicode_GET_LENGTH(chain);
    if (PyTuple_GET_SIZE(params) && kind_is(sym, s_method, NULL)) {
        int st = PySequence_Contains(PyTuple_GET_ITEM(sym, S_DECORATORS), s_staticmethod);
        if (st < 0) return -1;
        from = !st;
    }
    if (PyErr_Occurred()) return -1;
    for (Py_ssize_t i = from; i < PyTuple_GET_SIZE(params); i++) {
        PyObject *p = PyTuple_GET_ITEM(params, i);
        if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 2) {
            PyErr_SetString(PyExc_ValueError, "index_calls_pass: a parameter is not a pair");
            return -1;
        }
        PyObject *name = PyTuple_GET_ITEM(p, 0);
        if (!str_ok(name)) return -1;
        Py_ssize_t pn = PyUnicode_GET_LENGTH(name), st = 0;
        while (st < pn && PyUnicode_READ_CHAR(name, st) == '*') st++;
        if (pn - st == cn) {
            Py_ssize_t eq = PyUnicode_Tailmatch(name, chain, st, pn, -1);
            if (eq) return eq > 0 ? 1 : -1;
        }
    }
    return 0;
}

/* the arguments' rules: a parameter or `self.x` passed on */
static int call_args(PyObject **u, PyObject **k, PyObject *c, PyObject *args,
                     PyObject *param_names) {
    PyObject *scope = PyTuple_GET_ITEM(c, C_SCOPE), *callee = PyTuple_GET_ITEM(c, C_CALLEE);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        PyObject *arg = PyTuple_GET_ITEM(args, i);
        if (!fact_ok(arg, 2)) return -1;
        PyObject *key = PyTuple_GET_ITEM(arg, 0), *chain = PyTuple_GET_ITEM(arg, 1);
        int in = PySet_Contains(param_names, chain);
        if (in < 0) return -1;
        if (in) {
            int on = passes_on(k[K_PASSES_ON], callee);
            if (on <= 0) {
                if (on < 0) return -1;
                continue;
            }
            PyObject *owner = param_owner(u, scope, chain);
            if (owner == NULL) {
                if (PyErr_Occurred()) return -1;
                continue;
            }
            PyObject *sym = PyDict_GetItemWithError(u[U_SYMS], owner);
            in = sym != NULL ? value_parameter(sym, chain) : -1;
            if (in < 0 || (in && add_pass(u[U_PARAM_PASSES], owner, chain, c, key) < 0)) return -1;
        } else if (PyDict_GET_SIZE(u[U_PARAM_ATTRS]) && str_ok(chain) && self_attr_chain(chain)) {
            PyObject *cls = method_class(u, scope);
            in = cls != NULL ? PyDict_Contains(u[U_PARAM_ATTRS], cls) : PyErr_Occurred() ? -1 : 0;
            if (in < 0) return -1;
            if (in) {
                PyObject *attr_name = PyUnicode_Substring(chain, 5, PyUnicode_GET_LENGTH(chain));
                int rc = attr_name != NULL ? add_pass(u[U_ATTR_PASSES], cls, attr_name, c, key) : -1;
                Py_XDECREF(attr_name);
                if (rc < 0) return -1;
            }
        } else if (PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

/* one call site, index.py `_index_calls`' loop body */
static int one_site(PyObject **u, PyObject **k, const Tail *tails, int nt, PyObject *fi,
                    Site *site, PyObject *param_names, PyObject *param_items, PyObject *aliases,
                    PyObject *item_aliases) {
    PyObject *c = site->call;
    if (!fact_ok(c, C_LITERALS + 1)) return -1;
    PyObject *scope = PyTuple_GET_ITEM(c, C_SCOPE), *callee = PyTuple_GET_ITEM(c, C_CALLEE);
    PyObject *cargs = PyTuple_GET_ITEM(c, C_ARGS);
    if (!str_ok(scope) || !str_ok(callee)) return -1;
    if (!PyTuple_Check(cargs)) {
        PyErr_SetString(PyExc_TypeError, "index_calls_pass: a call's args are not a tuple");
        return -1;
    }
    int lit = PyObject_IsTrue(PyTuple_GET_ITEM(c, C_LITERALS));
    if (lit < 0 || (lit && keep_site(u[U_LITERAL], scope, site) < 0)) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(cargs);
    if (n && call_heads(u, k, tails, nt, fi, site) < 0) return -1;
    if (call_callee(u, c, param_names, param_items, aliases, item_aliases) < 0) return -1;
    /* the arguments matter only when one is a parameter or `self.x` may hold one */
    int any = n && PyDict_GET_SIZE(u[U_PARAM_ATTRS]);
    for (Py_ssize_t j = 0; n && !any && j < n; j++) {
        PyObject *arg = PyTuple_GET_ITEM(cargs, j);
        if (!fact_ok(arg, 2)) return -1;
        any = PySet_Contains(param_names, PyTuple_GET_ITEM(arg, 1));
        if (any < 0) return -1;
    }
    return any ? call_args(u, k, c, cargs, param_names) : 0;
}

/* index_calls_pass(fi, calls, param_names, param_items, aliases, item_aliases, kit): index.py
 * `_index_calls`' loop into fi's call tables (made empty by the caller); calls: CallFacts or
 * their plain tuples (the tables keep CallFacts); kit: (ARGUMENTS_KEPT, ADDERS, passes_on,
 * _stored_by_call, _registered, CallFact) */
PyObject *core_index_calls_pass(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fi, *calls, *param_names, *param_items, *aliases, *item_aliases, *kit;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!O!O!:index_calls_pass", &fi, &PyList_Type, &calls,
                          &PySet_Type, &param_names, &PySet_Type, &param_items, &PyDict_Type,
                          &aliases, &PyDict_Type, &item_aliases, &PyTuple_Type, &kit))
        return NULL;
    if (PyTuple_GET_SIZE(kit) != K_COUNT) {
        PyErr_SetString(PyExc_TypeError, "index_calls_pass: kit");
        return NULL;
    }
    if (init_strings() < 0) return NULL;
    PyObject **k = ((PyTupleObject *)kit)->ob_item;
    PyObject *u[U_COUNT] = {0}, *result = NULL;
    Tail tails[TAILS_MAX];
    int nt = tails_of(k, tails);
    if (nt < 0) return NULL;
    for (int i = 0; i < U_COUNT; i++) {
        u[i] = attr(fi, CALL_TABLES[i], &PyDict_Type);
        if (u[i] == NULL) goto done;
    }
    PyTypeObject *type = (PyTypeObject *)k[K_CALL_FACT];
    if (!PyType_Check(type) || !PyType_IsSubtype(type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "index_calls_pass: the kit's fact type");
        goto done;
    }
    /* (the list may not change under the loop: PyList_GET_ITEM below) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(calls); i++) {
        Site site = {PyList_GET_ITEM(calls, i), NULL, type};
        int rc = one_site(u, k, tails, nt, fi, &site, param_names, param_items, aliases,
                          item_aliases);
        Py_XDECREF(site.made);
        if (rc < 0) goto done;
    }
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < U_COUNT; i++) Py_XDECREF(u[i]);
    return result;
}
