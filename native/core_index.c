/*
 * The passes of a Python file's index over its facts (indexer/lang/python/index.py
 * index_file, whose Python loops stay as `_index_file`: the reference and the fallback): every
 * definition, import, binding and return of a build passes here once, and the Python loops
 * were ~0.26 cpu-s per Django build (prefix tests, tuples and dict updates per binding).
 * The rules are index.py's, written out in the same order; a change there is made here too
 * (tests/test_core_index.py compares every table the two make).
 */

#include "core.h"

/* field positions of the fact named tuples (indexer/lang/api.py; index.py checks them) */
enum { S_LOCAL = 0, S_KIND = 1, S_NAME = 2, S_START_LINE = 3, S_PARAMS = 10, S_DECORATORS = 11 };
enum { I_SCOPE = 0, I_MODULE = 1, I_NAME = 3, I_ALIAS = 4, I_LINE = 5 };
enum { B_SCOPE = 0, B_NAME = 1, B_VALUE = 2, B_IS_CALL = 3, B_LINE = 4 };
enum { R_SCOPE = 0, R_VALUE = 1 };

static PyObject *s_variable, *s_var, *s_def, *s_class, *s_function, *s_method, *s_import,
    *s_bind, *s_star, *s_empty, *s_getattr;

static int init_strings(void) {
    if (s_getattr != NULL) return 0;
    struct {
        PyObject **slot;
        const char *text;
    } all[] = {{&s_variable, "variable"}, {&s_var, "var"},         {&s_def, "def"},
               {&s_class, "class"},       {&s_function, "function"}, {&s_method, "method"},
               {&s_import, "import"},     {&s_bind, "bind"},       {&s_star, "*"},
               {&s_empty, ""},            {&s_getattr, "getattr"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(all[i].text);
        if (s == NULL) return -1;
        *all[i].slot = s;
    }
    return 0;
}

/* a fact: a tuple of at least n items */
int fact_ok(PyObject *fact, Py_ssize_t n) {
    if (PyTuple_Check(fact) && PyTuple_GET_SIZE(fact) >= n) return 1;
    PyErr_SetString(PyExc_TypeError, "a fact is not a fact tuple");
    return 0;
}

int str_ok(PyObject *s) {
    if (PyUnicode_Check(s)) return 1;
    PyErr_Format(PyExc_TypeError, "a fact field is not a str but a %.200s",
                 Py_TYPE(s)->tp_name);
    return 0;
}

/* str.startswith / str.endswith for an ASCII literal */
int starts(PyObject *s, const char *lit) {
    Py_ssize_t n = (Py_ssize_t)strlen(lit), len = PyUnicode_GET_LENGTH(s);
    if (len < n) return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)(unsigned char)lit[i]) return 0;
    return 1;
}

static int ends(PyObject *s, const char *lit) {
    Py_ssize_t n = (Py_ssize_t)strlen(lit), len = PyUnicode_GET_LENGTH(s);
    if (len < n) return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_READ(kind, data, len - n + i) != (Py_UCS4)(unsigned char)lit[i]) return 0;
    return 1;
}

/* Whether the str `s` is the interned literal `lit` (s_*): by address when `s` is interned
 * too (the facts' kinds are: marshal interns them again), else compared (-1 with an error
 * set: `s` no str). */
static int is_str(PyObject *s, PyObject *lit) {
    if (s == lit) return 1;
    if (PyUnicode_CheckExact(s) && PyUnicode_CHECK_INTERNED(s)) return 0;
    int cmp = PyUnicode_Compare(s, lit);
    return cmp == -1 && PyErr_Occurred() ? -1 : cmp == 0;
}

/* PyUnicode_FindChar(s, ch, 0, len(s), direction) for an ASCII `ch`: a str of one byte a
 * character (most names and values) looked through in place; the others by CPython's.
 * (PyUnicode_FindChar's checks and dispatch were ~88 instructions a call, ~170K calls per
 * Django build, most strs a dozen characters long.) */
static Py_ssize_t find_char(PyObject *s, char ch, int direction) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_KIND(s) != PyUnicode_1BYTE_KIND)
        return PyUnicode_FindChar(s, ch, 0, n, direction);
    const char *data = (const char *)PyUnicode_1BYTE_DATA(s);
    if (direction > 0) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (data[i] == ch) return i;
    } else {
        for (Py_ssize_t i = n - 1; i >= 0; i--)
            if (data[i] == ch) return i;
    }
    return -1;
}

/* `d.setdefault(key, {}, [] or set())` (`list` 0, 1 or 2): borrowed, NULL on error */
PyObject *setdefault_new(PyObject *d, PyObject *key, int list) {
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (v != NULL || PyErr_Occurred()) return v;
    v = list == 2 ? PySet_New(NULL) : list ? PyList_New(0) : PyDict_New();
    if (v == NULL) return NULL;
    int rc = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    return rc < 0 ? NULL : v;
}

/* The scope of the last names_add (a reference: a scope made for a definition may be
 * dropped, and its address taken again) and its dict in fi.names (borrowed: the table holds
 * it): 3 of 4 bindings are in the scope of the one before (~127K dict lookups per Django
 * build saved); and the lists of fi.names a binding went into out of line order (a new list
 * each index_passes, which forgets the others at its start and end). */
static struct {
    PyObject *scope, *by_name, *unsorted;
} last;

/* Whether `line` is at or past the line of the last binding of `held` (a list, or the
 * 1-tuple of a name bound once): 1, 0, -1. */
static int in_order_after(PyObject *held, PyObject *line) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(held);
    if (n == 0) return 1;
    PyObject *prev = PySequence_Fast_GET_ITEM(held, n - 1);
    if (!fact_ok(prev, 1)) return -1;
    return PyObject_RichCompareBool(line, PyTuple_GET_ITEM(prev, 0), Py_GE);
}

/* `held` put in last.unsorted once */
static int out_of_order(PyObject *held) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(last.unsorted); i++)
        if (PyList_GET_ITEM(last.unsorted, i) == held) return 0;
    return PyList_Append(last.unsorted, held);
}

/* engine/scopes.py ScopeTable.add(scope, name, (line, kind, what)) (the tuple made here:
 * PyTuple_Pack parses its varargs, ~200 instructions a tuple, ~150K per Django build), but a
 * name bound once in its scope (110K of Django's 124K) held as a 1-tuple, not a list: one
 * object of 48 bytes, not a list and its items (~80; PyList_New allocates both); a second
 * binding makes the list (index.py `_bind`, the readers index and iterate either) */
static int names_add(PyObject *names, PyObject *scope, PyObject *name, PyObject *line,
                     PyObject *kind, PyObject *what) {
    PyObject *binding = PyTuple_New(3);
    if (binding == NULL) return -1;
    PyTuple_SET_ITEM(binding, 0, Py_NewRef(line));
    PyTuple_SET_ITEM(binding, 1, Py_NewRef(kind));
    PyTuple_SET_ITEM(binding, 2, Py_NewRef(what));
    int rc = -1;
    PyObject *by_name = scope == last.scope ? last.by_name : setdefault_new(names, scope, 0);
    if (by_name != NULL) {
        if (scope != last.scope) Py_XSETREF(last.scope, Py_NewRef(scope));
        last.by_name = by_name;
        /* (a name bound once, as ~90% are: one lookup, which inserts it) */
        PyObject *one = PyTuple_New(1);
        if (one == NULL) goto done;
        PyTuple_SET_ITEM(one, 0, Py_NewRef(binding));
        PyObject *held = PyDict_SetDefault(by_name, name, one);
        if (held == one) {
            rc = 0;
        } else if (held != NULL && PyTuple_CheckExact(held)) { /* bound once before: now a list */
            PyObject *two = PyList_New(2);
            int ordered = two != NULL ? in_order_after(held, line) : -1;
            if (ordered >= 0) {
                PyList_SET_ITEM(two, 0, Py_NewRef(PyTuple_GET_ITEM(held, 0)));
                PyList_SET_ITEM(two, 1, Py_NewRef(binding));
                rc = PyDict_SetItem(by_name, name, two); /* (`held` freed) */
                if (rc == 0 && !ordered) rc = out_of_order(two);
            }
            Py_XDECREF(two);
        } else if (held != NULL) {
            int ordered = in_order_after(held, line);
            if (ordered >= 0 && (ordered || out_of_order(held) == 0))
                rc = PyList_Append(held, binding);
        }
        Py_DECREF(one);
    }
done:
    Py_DECREF(binding);
    return rc;
}

/* `dict.get(key, default)` for `d` (borrowed), `dflt` when missing; NULL on error */
PyObject *get_or(PyObject *d, PyObject *key, PyObject *dflt) {
    PyObject *v = PyDict_GetItemWithError(d, key);
    return v != NULL || PyErr_Occurred() ? v : dflt;
}

/* whether `key` is in the dict `params.get(scope)` (1, 0, -1) */
static int in_params(PyObject *params, PyObject *scope, PyObject *key) {
    PyObject *ps = PyDict_GetItemWithError(params, scope);
    if (ps == NULL) return PyErr_Occurred() ? -1 : 0;
    return PySequence_Contains(ps, key);
}

/* whether `scope`'s parent (`parent.get(scope)`) is a class among `syms`: its name (borrowed)
 * or NULL (also on error: check PyErr_Occurred) */
static PyObject *class_of(PyObject *parent, PyObject *syms, PyObject *scope) {
    PyObject *cls = PyDict_GetItemWithError(parent, scope);
    if (cls == NULL) return NULL;
    PyObject *sym = PyDict_GetItemWithError(syms, cls);
    if (sym == NULL) return NULL;
    if (!fact_ok(sym, S_KIND + 1)) return NULL;
    int eq = is_str(PyTuple_GET_ITEM(sym, S_KIND), s_class);
    return eq == 1 ? cls : NULL;
}

/* `value.split(":", 2)[2]` (IndexError without two colons), new reference */
static PyObject *after_two_colons(PyObject *value) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    Py_ssize_t a = find_char(value, ':', 1);
    Py_ssize_t b = a >= 0 ? PyUnicode_FindChar(value, ':', a + 1, n, 1) : -1;
    if (a == -2 || b == -2) return NULL;
    if (b < 0) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return NULL;
    }
    return PyUnicode_Substring(value, b + 1, n);
}

#define NAMES_MAX 32

/* The interned str of the literal `text`, made once (borrowed; NULL on error): a literal's
 * address is its key. PyObject_GetAttrString makes, interns and frees a str at every call
 * (~1,200 instructions: ~20 a file indexed, ~50 M per Django build). */
PyObject *literal_str(const char *text) {
    static const char *texts[NAMES_MAX];
    static PyObject *strs[NAMES_MAX];
    static int count;
    for (int i = 0; i < count; i++)
        if (texts[i] == text) return strs[i];
    if (count == NAMES_MAX) {
        PyErr_SetString(PyExc_SystemError, "literal_str: too many names");
        return NULL;
    }
    PyObject *s = PyUnicode_InternFromString(text);
    if (s == NULL) return NULL;
    texts[count] = text;
    return strs[count++] = s;
}

/* fi.`name` (a literal), checked to be a `type`: new reference */
PyObject *attr(PyObject *fi, const char *name, PyTypeObject *type) {
    PyObject *key = literal_str(name);
    PyObject *v = key != NULL ? PyObject_GetAttr(fi, key) : NULL;
    if (v != NULL && !PyObject_TypeCheck(v, type)) {
        PyErr_Format(PyExc_TypeError, "fi.%s is not a %s", name, type->tp_name);
        Py_CLEAR(v);
    }
    return v;
}

/* fi's attribute `name` when it is a set or a frozenset (fi.getattr_bound: the class's shared
 * empty frozenset until a name is bound to getattr's result), new reference */
static PyObject *attr_any_set(PyObject *fi, const char *name) {
    PyObject *key = literal_str(name);
    PyObject *v = key != NULL ? PyObject_GetAttr(fi, key) : NULL;
    if (v != NULL && !PyAnySet_Check(v)) {
        PyErr_Format(PyExc_TypeError, "fi.%s is not a set", name);
        Py_CLEAR(v);
    }
    return v;
}

enum {
    T_NAMES, T_SYMS, T_PARENT, T_MEMBERS, T_PARAMS, T_STAR, T_PARAMETRIZED, T_LOOPS, T_WRITES,
    T_CONTEXTS, T_SELF_ATTRS, T_GETATTR, T_PARAM_ATTRS, T_RETURNS, T_YIELDS, T_COUNT
};
static const char *const TABLES[T_COUNT] = {
    "names", "syms", "parent", "members", "params", "star_imports", "parametrized", "loops",
    "writes", "contexts", "self_attrs", "getattr_bound", "param_attrs", "returns", "yields"};

/* A parameter list's parameters by name ({name without its stars: (position, annotation)}),
 * the one `by_params` (a dict, or None) holds for an equal list when it holds one: Django's
 * 29,895 functions with parameters have 3,138 lists (20,183 are `(self)`), and the resolvers
 * only read these dicts. New reference. */
static PyObject *params_by_name(PyObject *params, PyObject *by_params) {
    if (by_params != Py_None) {
        PyObject *kept = PyDict_GetItemWithError(by_params, params);
        if (kept != NULL || PyErr_Occurred()) return Py_XNewRef(kept);
    }
    PyObject *by_name = PyDict_New();
    if (by_name == NULL) return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(params); k++) {
        PyObject *p = PyTuple_GET_ITEM(params, k);
        if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 2) {
            PyErr_SetString(PyExc_ValueError, "index_passes: a parameter is not a pair");
            goto error;
        }
        PyObject *pname = PyTuple_GET_ITEM(p, 0);
        if (!str_ok(pname)) goto error;
        Py_ssize_t pn = PyUnicode_GET_LENGTH(pname), st = 0;
        while (st < pn && PyUnicode_READ_CHAR(pname, st) == '*') st++;
        PyObject *key = st ? PyUnicode_Substring(pname, st, pn) : Py_NewRef(pname);
        PyObject *pos = PyLong_FromSsize_t(k);
        PyObject *v = key && pos ? PyTuple_Pack(2, pos, PyTuple_GET_ITEM(p, 1)) : NULL;
        int bad = v == NULL || PyDict_SetItem(by_name, key, v) < 0;
        Py_XDECREF(key);
        Py_XDECREF(pos);
        Py_XDECREF(v);
        if (bad) goto error;
    }
    if (by_params != Py_None && PyDict_SetItem(by_params, params, by_name) < 0) goto error;
    return by_name;
error:
    Py_DECREF(by_name);
    return NULL;
}

/* Whether `outer` is a scope around `local` (`local` starts with `outer` and a dot). */
static int encloses(PyObject *outer, PyObject *local) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(outer);
    return n < PyUnicode_GET_LENGTH(local) && PyUnicode_READ_CHAR(local, n) == '.' &&
           PyUnicode_Tailmatch(local, outer, 0, n, -1) == 1;
}

#define OPEN_MAX 64

static int symbol_pass(PyObject **t, PyObject *symbols, PyObject *by_params) {
    /* the definitions around the current one, outermost first (borrowed: the facts hold
       them): a definition's head (`A.b` -> `A`) is the local of one met before it, in
       source order, so its parent is that str, not a new one (Django: ~35K strs, each
       hashed again as a key of the parent and names tables) */
    PyObject *open[OPEN_MAX];
    int depth = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(symbols); i++) {
        PyObject *s = PyList_GET_ITEM(symbols, i);
        if (!fact_ok(s, S_DECORATORS + 1)) return -1;
        PyObject *local = PyTuple_GET_ITEM(s, S_LOCAL), *kind = PyTuple_GET_ITEM(s, S_KIND);
        PyObject *name = PyTuple_GET_ITEM(s, S_NAME);
        if (!str_ok(local) || !str_ok(kind)) return -1;
        if (PyDict_SetItem(t[T_SYMS], local, s) < 0) return -1;
        Py_ssize_t n = PyUnicode_GET_LENGTH(local);
        if (n == 0) continue;
        Py_ssize_t dot = find_char(local, '.', -1);
        if (dot == -2) return -1;
        while (depth > 0 && !encloses(open[depth - 1], local)) depth--;
        PyObject *head;
        if (dot < 0)
            head = Py_NewRef(s_empty);
        else if (depth > 0 && PyUnicode_GET_LENGTH(open[depth - 1]) == dot)
            head = Py_NewRef(open[depth - 1]);
        else
            head = PyUnicode_Substring(local, 0, dot);
        if (head == NULL) return -1;
        if (depth < OPEN_MAX) open[depth++] = local;
        int rc = -1;
        if (PyDict_SetItem(t[T_PARENT], local, head) < 0) goto next;
        int var = is_str(kind, s_variable);
        if (var < 0) goto next;
        if (names_add(t[T_NAMES], head, name, PyTuple_GET_ITEM(s, S_START_LINE),
                      var ? s_var : s_def, local) < 0)
            goto next;
        if (!var) {
            PyObject *owner = PyDict_GetItemWithError(t[T_SYMS], head);
            if (owner == NULL && PyErr_Occurred()) goto next;
            if (owner != NULL) {
                if (!fact_ok(owner, S_KIND + 1)) goto next;
                int is_class = is_str(PyTuple_GET_ITEM(owner, S_KIND), s_class);
                if (is_class < 0) goto next;
                if (is_class) {
                    /* a property's setter or deleter is the same attribute: the getter
                       stands for it */
                    PyObject *decs = PyTuple_GET_ITEM(s, S_DECORATORS);
                    if (!PyTuple_Check(decs)) {
                        PyErr_SetString(PyExc_TypeError, "index_passes: decorators");
                        goto next;
                    }
                    int accessor = 0;
                    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(decs) && !accessor; k++) {
                        PyObject *d = PyTuple_GET_ITEM(decs, k);
                        if (!str_ok(d)) goto next;
                        accessor = ends(d, ".setter") || ends(d, ".deleter") || ends(d, ".getter");
                    }
                    if (!accessor) {
                        PyObject *members = setdefault_new(t[T_MEMBERS], head, 0);
                        if (members == NULL || PyDict_SetItem(members, name, local) < 0)
                            goto next;
                    }
                }
            }
        }
        PyObject *params = PyTuple_GET_ITEM(s, S_PARAMS);
        int has_params = PyObject_IsTrue(params);
        if (has_params < 0) goto next;
        if (has_params && (is_str(kind, s_function) == 1 || is_str(kind, s_method) == 1)) {
            if (!PyTuple_Check(params)) {
                PyErr_SetString(PyExc_TypeError, "index_passes: params");
                goto next;
            }
            PyObject *by_name = params_by_name(params, by_params);
            if (by_name == NULL) goto next;
            int bad = PyDict_SetItem(t[T_PARAMS], local, by_name) < 0;
            Py_DECREF(by_name);
            if (bad) goto next;
        } else if (PyErr_Occurred()) {
            goto next;
        }
        rc = 0;
    next:
        Py_DECREF(head);
        if (rc < 0) return -1;
    }
    return 0;
}

static int import_pass(PyObject **t, PyObject *imports) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(imports); i++) {
        PyObject *imp = PyList_GET_ITEM(imports, i);
        if (!fact_ok(imp, I_LINE + 1)) return -1;
        PyObject *scope = PyTuple_GET_ITEM(imp, I_SCOPE), *name = PyTuple_GET_ITEM(imp, I_NAME);
        PyObject *alias = PyTuple_GET_ITEM(imp, I_ALIAS), *module = PyTuple_GET_ITEM(imp, I_MODULE);
        if (!str_ok(scope) || !str_ok(name) || !str_ok(alias) || !str_ok(module)) return -1;
        if (PyUnicode_Compare(name, s_star) == 0) {
            if (PyUnicode_GET_LENGTH(scope) == 0 && PyList_Append(t[T_STAR], imp) < 0) return -1;
            continue;
        }
        PyObject *bound;
        if (PyUnicode_GET_LENGTH(alias)) {
            bound = Py_NewRef(alias);
        } else if (PyUnicode_GET_LENGTH(name)) {
            bound = Py_NewRef(name);
        } else {
            Py_ssize_t n = PyUnicode_GET_LENGTH(module);
            Py_ssize_t dot = PyUnicode_FindChar(module, '.', 0, n, 1);
            if (dot == -2) return -1;
            bound = dot < 0 ? Py_NewRef(module) : PyUnicode_Substring(module, 0, dot);
            if (bound == NULL) return -1;
        }
        int rc = names_add(t[T_NAMES], scope, bound, PyTuple_GET_ITEM(imp, I_LINE), s_import, imp);
        Py_DECREF(bound);
        if (rc < 0) return -1;
    }
    return 0;
}

/* one binding (index.py's loop body); `stored` collects `self.x = v` (not a call) */
static int one_binding(PyObject **t, PyObject *b, PyObject *looped, PyObject *adds,
                       PyObject *aliases, PyObject *item_aliases, PyObject *stored) {
    if (!fact_ok(b, B_LINE + 1)) return -1;
    PyObject *scope = PyTuple_GET_ITEM(b, B_SCOPE), *name = PyTuple_GET_ITEM(b, B_NAME);
    PyObject *value = PyTuple_GET_ITEM(b, B_VALUE);
    if (!str_ok(scope) || !str_ok(name) || !str_ok(value)) return -1;
    int is_call = PyObject_IsTrue(PyTuple_GET_ITEM(b, B_IS_CALL));
    if (is_call < 0) return -1;
    int mine = starts(name, "self.");
    if (mine && !is_call && PyList_Append(stored, b) < 0) return -1;
    Py_ssize_t nlen = PyUnicode_GET_LENGTH(name);
    if (ends(name, "[]")) { /* `x[k] = v`: an item stored into what x holds */
        PyObject *held = PyUnicode_Substring(name, 0, nlen - 2);
        PyObject *list = held ? setdefault_new(adds, held, 1) : NULL;
        Py_XDECREF(held);
        return list == NULL ? -1 : PyList_Append(list, b);
    }
    Py_ssize_t colon = find_char(value, ':', 1);
    if (colon == -2) return -1;
    if (colon >= 0) {
        Py_UCS4 first = PyUnicode_READ_CHAR(value, 0);
        if (first == 'p' && starts(value, "param:")) { /* pytest's parametrize values */
            PyObject *list = setdefault_new(t[T_PARAMETRIZED], scope, 1);
            return list == NULL ? -1 : PyList_Append(list, b);
        }
        int iter = first == 'i' && starts(value, "iter:");
        if (iter || (first == 'k' && starts(value, "key:"))) {
            PyObject *chain = after_two_colons(value);
            if (chain == NULL) return -1;
            int rc = -1;
            if (iter) {
                PyObject *loop = PyTuple_Pack(3, scope, PyTuple_GET_ITEM(b, B_LINE), chain);
                int seen = loop ? PySet_Contains(looped, loop) : -1;
                if (seen == 0 && (PySet_Add(looped, loop) < 0 || PyList_Append(t[T_LOOPS], b) < 0))
                    seen = -1;
                Py_XDECREF(loop);
                if (seen < 0) goto chain_done;
            }
            /* `for f in items: f()`, `h = table["go"]; h()` */
            if (!mine && !is_call) {
                int param = in_params(t[T_PARAMS], scope, chain);
                if (param < 0) goto chain_done;
                if (param) {
                    PyObject *key = PyTuple_Pack(2, scope, name);
                    if (key == NULL || PyDict_SetItem(item_aliases, key, chain) < 0) {
                        Py_XDECREF(key);
                        goto chain_done;
                    }
                    Py_DECREF(key);
                }
            }
            rc = 0;
        chain_done:
            Py_DECREF(chain);
            if (rc < 0) return -1;
        } else if (first == 's' && starts(value, "set:")) {
            return PyList_Append(t[T_WRITES], b);
        } else if ((first == 'e' || first == 'a') &&
                   (starts(value, "enter:") || starts(value, "aenter:"))) {
            if (PyList_Append(t[T_CONTEXTS], b) < 0) return -1;
            if (nlen == 0) return 0; /* `with lock:` binds nothing */
        }
    }
    if (mine) {
        PyObject *cls = class_of(t[T_PARENT], t[T_SYMS], scope);
        if (cls == NULL) return PyErr_Occurred() ? -1 : 0;
        PyObject *attrs = setdefault_new(t[T_SELF_ATTRS], cls, 0);
        PyObject *attr_name = attrs ? PyUnicode_Substring(name, 5, nlen) : NULL;
        PyObject *list = attr_name ? setdefault_new(attrs, attr_name, 1) : NULL;
        Py_XDECREF(attr_name);
        return list == NULL ? -1 : PyList_Append(list, b);
    }
    if (names_add(t[T_NAMES], scope, name, PyTuple_GET_ITEM(b, B_LINE), s_bind, b) < 0) return -1;
    if (is_call) {
        if (PyUnicode_Compare(value, s_getattr) == 0) {
            if (!PySet_CheckExact(t[T_GETATTR])) { /* (the shared empty frozenset: a set now) */
                PyObject *bound = PySet_New(t[T_GETATTR]);
                if (bound == NULL) return -1;
                Py_SETREF(t[T_GETATTR], bound);
            }
            return PySet_Add(t[T_GETATTR], name);
        }
        return PyErr_Occurred() ? -1 : 0;
    }
    int param = in_params(t[T_PARAMS], scope, value); /* `alias = cb`: alias() calls cb */
    if (param <= 0) return param;
    PyObject *key = PyTuple_Pack(2, scope, name);
    int rc = key == NULL ? -1 : PyDict_SetItem(aliases, key, value);
    Py_XDECREF(key);
    return rc;
}

/* `self.x = p` of a method's parameter p: what may store a parameter */
static int stored_pass(PyObject **t, PyObject *stored) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(stored); i++) {
        PyObject *b = PyList_GET_ITEM(stored, i);
        PyObject *scope = PyTuple_GET_ITEM(b, B_SCOPE), *value = PyTuple_GET_ITEM(b, B_VALUE);
        int param = in_params(t[T_PARAMS], scope, value);
        if (param < 0) return -1;
        if (!param) continue;
        PyObject *cls = get_or(t[T_PARENT], scope, s_empty);
        if (cls == NULL) return -1;
        PyObject *attrs = setdefault_new(t[T_PARAM_ATTRS], cls, 0);
        PyObject *name = PyTuple_GET_ITEM(b, B_NAME);
        PyObject *attr_name =
            attrs ? PyUnicode_Substring(name, 5, PyUnicode_GET_LENGTH(name)) : NULL;
        PyObject *list = attr_name ? setdefault_new(attrs, attr_name, 1) : NULL;
        Py_XDECREF(attr_name);
        PyObject *pair = list ? PyTuple_Pack(2, scope, value) : NULL;
        int rc = pair == NULL ? -1 : PyList_Append(list, pair);
        Py_XDECREF(pair);
        if (rc < 0) return -1;
    }
    return 0;
}

static int return_pass(PyObject **t, PyObject *returns) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(returns); i++) {
        PyObject *r = PyList_GET_ITEM(returns, i);
        if (!fact_ok(r, R_VALUE + 1)) return -1;
        PyObject *value = PyTuple_GET_ITEM(r, R_VALUE);
        if (!str_ok(value)) return -1;
        PyObject *held = starts(value, "yield:") ? t[T_YIELDS] : t[T_RETURNS];
        PyObject *list = setdefault_new(held, PyTuple_GET_ITEM(r, R_SCOPE), 1);
        if (list == NULL || PyList_Append(list, r) < 0) return -1;
    }
    return 0;
}

/* index_passes(fi, symbols, imports, bindings, returns[, by_params]) -> (adds, aliases,
 * item_aliases, unsorted): the passes of index.py's index_file over the four fact lists, into
 * fi's tables; the caller sets fi's markers and sorts the lists of fi.names `unsorted` holds
 * (ScopeTable.finish's, the others are in order). `by_params`: a dict of the parameters by
 * name made per parameter list, shared by the files indexed with it (`params_by_name`). */
PyObject *core_index_passes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fi, *symbols, *imports, *bindings, *returns, *by_params = Py_None;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!|O:index_passes", &fi, &PyList_Type, &symbols,
                          &PyList_Type, &imports, &PyList_Type, &bindings, &PyList_Type,
                          &returns, &by_params))
        return NULL;
    if (by_params != Py_None && !PyDict_Check(by_params)) {
        PyErr_SetString(PyExc_TypeError, "index_passes: by_params is no dict");
        return NULL;
    }
    if (init_strings() < 0) return NULL;
    Py_CLEAR(last.scope);
    last.by_name = NULL;
    Py_XSETREF(last.unsorted, PyList_New(0));
    if (last.unsorted == NULL) return NULL;
    PyObject *t[T_COUNT] = {0};
    PyObject *looped = NULL, *adds = NULL, *aliases = NULL, *item_aliases = NULL, *stored = NULL;
    PyObject *result = NULL;
    for (int i = 0; i < T_COUNT; i++) {
        PyTypeObject *type = (i == T_STAR || i == T_LOOPS || i == T_WRITES || i == T_CONTEXTS)
                                 ? &PyList_Type
                                 : &PyDict_Type;
        t[i] = i == T_GETATTR ? attr_any_set(fi, TABLES[i]) : attr(fi, TABLES[i], type);
        if (t[i] == NULL) goto done;
    }
    looped = PySet_New(NULL);
    adds = PyDict_New();
    aliases = PyDict_New();
    item_aliases = PyDict_New();
    stored = PyList_New(0);
    if (looped == NULL || adds == NULL || aliases == NULL || item_aliases == NULL || stored == NULL)
        goto done;
    /* fi.syms and fi.parent take one entry per definition (fi.parent: but the module's):
       made at their size (a dict grown from 8 slots copies its entries at each doubling:
       ~46K definitions per Django build, files of hundreds) when they are still empty */
    Py_ssize_t defs = PyList_GET_SIZE(symbols);
    for (int i = T_SYMS; defs > 5 && i <= T_PARENT; i++) {
        if (PyDict_GET_SIZE(t[i]) != 0 || !PyDict_CheckExact(t[i])) continue;
        PyObject *key = literal_str(TABLES[i]);
        PyObject *sized = key != NULL ? _PyDict_NewPresized(defs) : NULL;
        if (sized == NULL || PyObject_SetAttr(fi, key, sized) < 0) {
            Py_XDECREF(sized);
            goto done;
        }
        Py_SETREF(t[i], sized);
    }
    if (symbol_pass(t, symbols, by_params) < 0 || import_pass(t, imports) < 0) goto done;
    /* (the list may not change under the loop: PyList_GET_ITEM below) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(bindings); i++) {
        if (one_binding(t, PyList_GET_ITEM(bindings, i), looped, adds, aliases, item_aliases,
                        stored) < 0)
            goto done;
    }
    if (stored_pass(t, stored) < 0 || return_pass(t, returns) < 0) goto done;
    /* (a file binding a name to getattr's result: its own set; the others keep the empty one) */
    if (PySet_CheckExact(t[T_GETATTR])) {
        PyObject *key = literal_str(TABLES[T_GETATTR]);
        if (key == NULL || PyObject_SetAttr(fi, key, t[T_GETATTR]) < 0) goto done;
    }
    result = PyTuple_Pack(4, adds, aliases, item_aliases, last.unsorted);
done:
    Py_CLEAR(last.scope);
    Py_CLEAR(last.unsorted);
    last.by_name = NULL;
    for (int i = 0; i < T_COUNT; i++) Py_XDECREF(t[i]);
    Py_XDECREF(looped);
    Py_XDECREF(adds);
    Py_XDECREF(aliases);
    Py_XDECREF(item_aliases);
    Py_XDECREF(stored);
    return result;
}

