/*
 * Names.lookup_name (indexer/lang/python/names.py `_lookup_name`, the reference and the
 * fallback): the value of a name read in a scope, ~34K calls per Django resolution of every
 * 4th file, the dict reads of the file's scopes around the calls that find a binding's value
 * (_lookup_in_scope, eval_type, pytest_value, _default, _unbound_lookup, _cut: called back in
 * the same order with the same arguments). Installed as the class's method, as core_chain.c's
 * eval_chain is. A change there is made here too (tests/test_core_chain.py compares every
 * answer and table the two make).
 */

#include "core_methods.h"

/* lookup_method's kit: MAX_DEPTH, CLASS_FIRST, and SymbolFact's positions of kind, name,
 * signature and decorators */
enum { L_MAX_DEPTH, L_CLASS_FIRST, L_KIND, L_NAME, L_SIGNATURE, L_DECORATORS, L_COUNT };
static PyObject *lookup_kit;
static long lookup_max_depth;
static Py_ssize_t at_kind, at_name, at_signature, at_decorators, sym_size;
static PyObject *s_names, *s_params, *s_syms, *s_parent, *s_empty, *s_method, *s_class,
    *s_sym, *s_self, *s_param, *s_scope, *s_local_type, *s_staticmethod, *s_classmethod,
    *m_in_scope, *m_eval_type, *m_pytest_value, *m_default, *m_unbound, *s_lookups, *s_path,
    *s_inst, *m_cut, *s_import, *s_def, *s_var, *s_bind, *s_unknown, *s_facts, *s_extra,
    *s_alt_imports, *s_value, *m_pick, *m_alternative_imports, *m_import_target,
    *m_binding_value, *m_before_item_read, *m_lookup_name;

static int lookup_strings(void) {
    if (m_unbound != NULL) return 0;
    struct {
        PyObject **slot;
        const char *text;
    } all[] = {{&s_names, "names"},           {&s_params, "params"},
               {&s_syms, "syms"},             {&s_parent, "parent"},
               {&s_empty, ""},                {&s_method, "method"},
               {&s_class, "class"},           {&s_sym, "sym"},
               {&s_self, "self"},             {&s_param, "param"},
               {&s_scope, "scope"},           {&s_local_type, "local-type"},
               {&s_staticmethod, "staticmethod"}, {&s_classmethod, "classmethod"},
               {&m_in_scope, "_lookup_in_scope"}, {&m_eval_type, "eval_type"},
               {&m_pytest_value, "pytest_value"}, {&m_default, "_default"},
               {&m_unbound, "_unbound_lookup"}, {&s_lookups, "_lookups"},
               {&s_path, "path"},             {&s_inst, "inst"},
               {&m_cut, "_cut"},              {&s_import, "import"},
               {&s_def, "def"},               {&s_var, "var"},
               {&s_bind, "bind"},             {&s_unknown, "unknown"},
               {&s_facts, "facts"},           {&s_extra, "extra"},
               {&s_alt_imports, "alt_imports"}, {&s_value, "value"},
               {&m_pick, "_pick"},            {&m_alternative_imports, "_alternative_imports"},
               {&m_import_target, "import_target"}, {&m_binding_value, "_binding_value"},
               {&m_before_item_read, "_before_item_read"}, {&m_lookup_name, "lookup_name"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(all[i].text);
        if (s == NULL) return -1;
        *all[i].slot = s;
    }
    return 0;
}

/* fi's table `name`, a dict (new reference) */
static PyObject *table_of(PyObject *fi, PyObject *name) {
    PyObject *t = PyObject_GetAttr(fi, name);
    if (t != NULL && !PyDict_Check(t)) {
        PyErr_Format(PyExc_TypeError, "lookup_name: fi.%U is not a dict", name);
        Py_CLEAR(t);
    }
    return t;
}

/* `name in table.get(s, NO_NAMES)` (1, 0, -1) */
static int bound_in(PyObject *table, PyObject *s, PyObject *name) {
    PyObject *names = PyDict_GetItemWithError(table, s);
    if (names == NULL) return PyErr_Occurred() ? -1 : 0;
    return PySequence_Contains(names, name);
}

/* a symbol fact's field at `at` (borrowed), or NULL */
static PyObject *sym_field(PyObject *sym, Py_ssize_t at) {
    if (!PyTuple_Check(sym) || PyTuple_GET_SIZE(sym) < sym_size) {
        PyErr_SetString(PyExc_TypeError, "lookup_name: a definition is not a SymbolFact");
        return NULL;
    }
    return PyTuple_GET_ITEM(sym, at);
}

/* `name` as a parameter of `scope` (names.py: the instance or class of a method's first,
 * else its annotation's type, what pytest binds a test's to, a default that names
 * something, else a `param`): new reference */
static PyObject *parameter(PyObject *self, PyObject *fi, PyObject *path, PyObject *params,
                           PyObject *scope, PyObject *name, PyObject *depth, long d) {
    PyObject *of = PyDict_GetItemWithError(params, scope);
    PyObject *p = of != NULL ? PyObject_GetItem(of, name) : NULL;
    PyObject *syms = p != NULL ? table_of(fi, s_syms) : NULL, *r = NULL, *made = NULL;
    if (syms == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, scope);
        Py_XDECREF(p);
        return NULL;
    }
    PyObject *s = PyDict_GetItemWithError(syms, scope);
    if (s == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, scope);
        goto done;
    }
    if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 2) {
        PyErr_SetString(PyExc_TypeError, "lookup_name: a parameter is not (index, annotation)");
        goto done;
    }
    PyObject *idx = PyTuple_GET_ITEM(p, 0), *ann = PyTuple_GET_ITEM(p, 1);
    PyObject *kind = sym_field(s, at_kind);
    PyObject *decorators = kind != NULL ? sym_field(s, at_decorators) : NULL;
    if (decorators == NULL) goto done;
    long i = PyLong_Check(idx) ? PyLong_AsLong(idx) : -1;
    if (i == -1 && PyErr_Occurred()) goto done;
    int first = i == 0 && PyUnicode_Check(kind) && same_str(kind, s_method);
    if (first) {
        int st = PySequence_Contains(decorators, s_staticmethod);
        if (st < 0) goto done;
        first = !st;
    }
    if (first) {
        PyObject *parent = table_of(fi, s_parent);
        PyObject *cls = parent != NULL ? get_or(parent, scope, s_empty) : NULL;
        int of_class = cls != NULL ? PySequence_Contains(decorators, s_classmethod) : -1;
        if (of_class == 0)
            of_class = PySequence_Contains(PyTuple_GET_ITEM(lookup_kit, L_CLASS_FIRST),
                                           sym_field(s, at_name));
        PyObject *ent = of_class < 0   ? NULL
                        : of_class > 0 ? PyTuple_Pack(3, s_sym, path, cls)
                                       : PyTuple_Pack(4, s_inst, path, cls, Py_False);
        r = ent != NULL ? PyTuple_Pack(2, ent, s_self) : NULL;
        Py_XDECREF(ent);
        Py_XDECREF(parent);
        goto done;
    }
    int some = PyObject_IsTrue(ann);
    if (some < 0) goto done;
    if (some) {
        made = PyLong_FromLong(d + 1);
        PyObject *a[5] = {self, fi, scope, ann, made};
        PyObject *t = made != NULL ? call_method(m_eval_type, a, 4) : NULL;
        if (t == NULL) goto done;
        r = t == Py_None ? t : PyTuple_Pack(2, t, s_local_type);
        if (r != t) Py_DECREF(t);
    } else { /* a test's parameter holds what pytest binds it to (fixtures.py) */
        PyObject *a[5] = {self, fi, scope, name, depth};
        r = call_method(m_pytest_value, a, 4);
        if (r == NULL) goto done;
        if (r == Py_None) {
            PyObject *sig = sym_field(s, at_signature);
            if (sig == NULL || !str_ok(sig)) goto fail;
            int dflt = PyUnicode_FindChar(sig, '=', 0, PyUnicode_GET_LENGTH(sig), 1) >= 0;
            for (int k = 0; dflt == 1 && k < 2; k++) { /* `name=` or `name =` in the signature */
                PyObject *t = PyUnicode_FromFormat(k ? "%U =" : "%U=", name);
                Py_ssize_t at = t != NULL ? PyUnicode_Find(sig, t, 0, PyUnicode_GET_LENGTH(sig), 1)
                                          : -2;
                Py_XDECREF(t);
                if (at == -2) goto fail;
                if (at >= 0) dflt = 2;
            }
            if (dflt == 2) {
                Py_DECREF(r);
                PyObject *b[6] = {self, fi, scope, s, name, depth};
                r = call_method(m_default, b, 5);
            }
        }
    }
    if (r == Py_None) {
        Py_DECREF(r);
        PyObject *ent = PyTuple_Pack(4, s_param, path, scope, name);
        r = ent != NULL ? PyTuple_Pack(2, ent, s_scope) : NULL;
        Py_XDECREF(ent);
    }
    goto done;
fail:
    Py_CLEAR(r);
done:
    Py_XDECREF(made);
    Py_XDECREF(p);
    Py_DECREF(syms);
    return r;
}

/* the scope enclosing `scope` that binds `name` (a class body's names are not visible in
 * the functions nested in it), "" for the module, or Py_None when none does (borrowed; NULL
 * on error) */
static PyObject *enclosing(PyObject *fi, PyObject *names, PyObject *params, PyObject *scope,
                           PyObject *name) {
    PyObject *parent = table_of(fi, s_parent), *syms = NULL, *s = scope, *found = Py_None;
    if (parent == NULL) return NULL;
    syms = table_of(fi, s_syms);
    if (syms == NULL) goto fail;
    while (PyObject_IsTrue(s) > 0) {
        s = get_or(parent, s, s_empty);
        if (s == NULL) goto fail;
        int in_s = PyObject_IsTrue(s);
        if (in_s < 0) goto fail;
        if (in_s) {
            PyObject *sym = PyDict_GetItemWithError(syms, s);
            if (sym == NULL && PyErr_Occurred()) goto fail;
            if (sym != NULL && sym != Py_None) {
                PyObject *kind = sym_field(sym, at_kind);
                if (kind == NULL) goto fail;
                if (PyUnicode_Check(kind) && same_str(kind, s_class)) continue;
            }
        }
        /* (the module, "", has no parameters: most walks end there) */
        int in = bound_in(names, s, name);
        if (in == 0 && in_s) in = bound_in(params, s, name);
        if (in < 0) goto fail;
        if (in) {
            found = s;
            break;
        }
    }
    if (PyErr_Occurred()) goto fail;
    Py_DECREF(parent);
    Py_DECREF(syms);
    return found; /* (borrowed: a key of parent's or the caller's scope, held while the
                     file's tables are) */
fail:
    Py_DECREF(parent);
    Py_XDECREF(syms);
    return NULL;
}

static PyObject *lookup_name(PyObject *self, PyObject *fi, PyObject *scope, PyObject *name,
                             PyObject *line, PyObject *depth, PyObject *key) {
    long d;
    if (depth_of(depth, &d) < 0) return NULL;
    if (d > lookup_max_depth) {
        PyObject *a[1] = {self};
        PyObject *c = call_method(m_cut, a, 0); /* every scope's lookup would be cut */
        if (c == NULL) return NULL;
        Py_DECREF(c);
        PyObject *b[4] = {self, fi, name, depth};
        return call_method(m_unbound, b, 3);
    }
    PyObject *seen = PyObject_GetAttr(self, s_lookups), *path = NULL, *cuts = NULL, *r = NULL;
    PyObject *names = NULL, *params = NULL, *outer = NULL, *made_key = NULL, *now = NULL;
    PyObject *bound = NULL;
    if (seen == NULL) return NULL;
    if (seen != Py_None && !PyDict_Check(seen)) {
        PyErr_SetString(PyExc_TypeError, "lookup_name: the lookups are not a dict");
        goto done;
    }
    path = PyObject_GetAttr(fi, s_path);
    if (path == NULL) goto done;
    if (seen != Py_None && key == Py_None) {
        key = made_key = PyTuple_Pack(3, path, scope, name);
        PyObject *hit = key != NULL ? PyDict_GetItemWithError(seen, key) : NULL;
        if (hit != NULL) {
            r = Py_NewRef(hit);
            goto done;
        }
        if (PyErr_Occurred()) goto done;
    }
    cuts = memo_cuts(self);
    names = cuts != NULL ? table_of(fi, s_names) : NULL;
    if (names == NULL) goto done;
    /* (the bindings read once, for both; a parameter's lookup is _lookup_in_scope's last
       step, depth is in bounds here) */
    PyObject *of = PyDict_GetItemWithError(names, scope);
    if (of != NULL && !PyDict_Check(of)) {
        PyErr_SetString(PyExc_TypeError, "lookup_name: a scope's names are not a dict");
        goto done;
    }
    bound = of != NULL ? PyDict_GetItemWithError(of, name) : NULL;
    if (bound == NULL && PyErr_Occurred()) goto done;
    Py_XINCREF(bound);
    int some = bound != NULL ? PyObject_IsTrue(bound) : 0;
    if (some < 0) goto done;
    if (some) {
        PyObject *a[8] = {self, fi, scope, name, line, Py_True, depth, bound};
        r = call_method(m_in_scope, a, 7);
        goto kept;
    }
    params = table_of(fi, s_params);
    int in = params != NULL ? bound_in(params, scope, name) : -1;
    if (in < 0) goto done;
    if (in) {
        r = parameter(self, fi, path, params, scope, name, depth, d);
        goto kept;
    }
    /* bound nowhere in `scope`: in the enclosing functions and the module (None: the module's
       star imports and the builtins, the same from any scope), the same answer from every
       scope nested in the one that binds it: kept with the file's lookups */
    PyObject *s = enclosing(fi, names, params, scope, name);
    if (s == NULL) goto done;
    outer = PyTuple_Pack(4, path, s, name, Py_None);
    if (outer == NULL) goto done;
    r = seen != Py_None ? PyDict_GetItemWithError(seen, outer) : NULL;
    if (r != NULL) {
        Py_INCREF(r);
    } else if (!PyErr_Occurred()) {
        PyObject *outer_cuts = memo_cuts(self);
        if (outer_cuts == NULL) goto done;
        if (s == Py_None) {
            PyObject *a[4] = {self, fi, name, depth};
            r = call_method(m_unbound, a, 3);
        } else {
            PyObject *a[7] = {self, fi, s, name, Py_None, Py_True, depth};
            r = call_method(m_in_scope, a, 6);
        }
        if (r != NULL && seen != Py_None) {
            now = memo_cuts(self);
            int same = now != NULL ? PyObject_RichCompareBool(now, outer_cuts, Py_EQ) : -1;
            if (same < 0 || (same && PyDict_SetItem(seen, outer, r) < 0)) Py_CLEAR(r);
            Py_CLEAR(now);
        }
        Py_DECREF(outer_cuts);
    }
kept:
    if (r != NULL && seen != Py_None) {
        Py_ssize_t n = bound == NULL || bound == Py_None ? 0 : PyObject_Length(bound);
        if (n < 0) {
            Py_CLEAR(r);
        } else if (n < 2) {
            now = memo_cuts(self);
            int same = now != NULL ? PyObject_RichCompareBool(now, cuts, Py_EQ) : -1;
            if (same < 0 || (same && PyDict_SetItem(seen, key, r) < 0)) Py_CLEAR(r);
        }
    }
done:
    Py_XDECREF(bound);
    Py_XDECREF(seen);
    Py_XDECREF(path);
    Py_XDECREF(cuts);
    Py_XDECREF(names);
    Py_XDECREF(params);
    Py_XDECREF(outer);
    Py_XDECREF(made_key);
    Py_XDECREF(now);
    return r;
}

/* a candidate binding (line, kind, what) of `cands`: its kind and what (borrowed), or -1 */
static int candidate(PyObject *c, PyObject **kind, PyObject **what) {
    if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) < 3 || !PyUnicode_Check(PyTuple_GET_ITEM(c, 1))) {
        PyErr_SetString(PyExc_TypeError, "_lookup_in_scope: a candidate is not (line, kind, what)");
        return -1;
    }
    *kind = PyTuple_GET_ITEM(c, 1);
    *what = PyTuple_GET_ITEM(c, 2);
    return 0;
}

/* `(("sym", path, what), "scope")` (a definition or a module variable), or `("unknown", ...)` */
static PyObject *answer(PyObject *kind, PyObject *path, PyObject *a, PyObject *b) {
    PyObject *ent = b != NULL ? PyTuple_Pack(4, kind, path, a, b) : PyTuple_Pack(3, kind, path, a);
    PyObject *r = ent != NULL ? PyTuple_Pack(2, ent, s_scope) : NULL;
    Py_XDECREF(ent);
    return r;
}

/* whether the `import` candidate picked is one of the file's alternative imports (`alt`,
 * new reference, set when so) (1, 0, -1) */
static int alternative(PyObject *fi, PyObject *line_of, PyObject **alt) {
    PyObject *facts = PyObject_GetAttr(fi, s_facts);
    PyObject *extra = facts != NULL ? PyObject_GetAttr(facts, s_extra) : NULL;
    Py_XDECREF(facts);
    if (extra == NULL) return -1;
    PyObject *a = PyDict_Check(extra) ? PyDict_GetItemWithError(extra, s_alt_imports) : NULL;
    if (a == NULL && !PyDict_Check(extra)) { /* (a mapping of another type: its get) */
        a = PyObject_CallMethod(extra, "get", "O", s_alt_imports);
        Py_XDECREF(a); /* (held by extra) */
    }
    int in = a != NULL ? PyObject_IsTrue(a) : PyErr_Occurred() ? -1 : 0;
    if (in > 0) in = PySequence_Contains(a, line_of);
    if (in > 0) *alt = Py_NewRef(a);
    Py_DECREF(extra);
    return in;
}

/* Names._lookup_in_scope: `name` in `scope` alone, its bindings there (`cands`, when the
 * caller read them), else its parameter; None when neither */
static PyObject *in_scope(PyObject *self, PyObject *fi, PyObject *scope, PyObject *name,
                          PyObject *line, PyObject *follow, PyObject *depth, PyObject *cands) {
    long d;
    if (depth_of(depth, &d) < 0) return NULL;
    if (d > lookup_max_depth) {
        PyObject *a[1] = {self};
        return call_method(m_cut, a, 0);
    }
    PyObject *names = NULL, *picked = NULL, *path = NULL, *deeper = NULL, *r = NULL;
    PyObject *alt = NULL, *value = NULL;
    int fol = PyObject_IsTrue(follow);
    if (fol < 0) return NULL;
    Py_INCREF(cands); /* (held while the answer is made) */
    if (cands == Py_None) {
        Py_DECREF(cands);
        cands = NULL;
        names = table_of(fi, s_names);
        PyObject *of = names != NULL ? PyDict_GetItemWithError(names, scope) : NULL;
        if (of != NULL && !PyDict_Check(of)) {
            PyErr_SetString(PyExc_TypeError, "lookup_name: a scope's names are not a dict");
            goto done;
        }
        cands = of != NULL ? PyDict_GetItemWithError(of, name) : NULL;
        if (cands == NULL && PyErr_Occurred()) goto done;
        cands = Py_NewRef(cands != NULL ? cands : Py_None);
    }
    int some = PyObject_IsTrue(cands);
    if (some <= 0) {
        if (some < 0) goto done;
        /* (a parameter's value: lookup_name's, the same at any line) */
        PyObject *params = table_of(fi, s_params);
        PyObject *ps = params != NULL ? PyDict_GetItemWithError(params, scope) : NULL;
        int in = ps != NULL ? PyObject_IsTrue(ps) : PyErr_Occurred() ? -1 : 0;
        if (in > 0) in = PySequence_Contains(ps, name);
        if (in > 0) {
            PyObject *a[6] = {self, fi, scope, name, line, depth};
            r = call_method(m_lookup_name, a, 5);
        } else if (in == 0) {
            r = Py_NewRef(Py_None);
        }
        Py_XDECREF(params);
        goto done;
    }
    Py_ssize_t n = PyObject_Length(cands);
    if (n < 0) goto done;
    if (n == 1) {
        picked = Py_NewRef(cands);
    } else {
        PyObject *a[3] = {self, cands, line};
        picked = call_method(m_pick, a, 2);
    }
    if (picked == NULL) goto done;
    if (!(PyList_Check(picked) || PyTuple_Check(picked)) ||
        !(PyList_Check(cands) || PyTuple_Check(cands))) {
        PyErr_SetString(PyExc_TypeError, "_lookup_in_scope: the candidates are not a sequence");
        goto done;
    }
    PyObject *kind, *what;
    PyObject *first = PySequence_Fast_GET_SIZE(picked) ? PySequence_Fast_GET_ITEM(picked, 0) : NULL;
    if (first == NULL) {
        PyErr_SetString(PyExc_IndexError, "_lookup_in_scope: nothing picked");
        goto done;
    }
    if (candidate(first, &kind, &what) < 0) goto done;
    if (fol && n > 1 && same_str(kind, s_import)) {
        int in = alternative(fi, PyTuple_GET_ITEM(first, 0), &alt);
        if (in < 0) goto done;
        if (in) {
            PyObject *a[6] = {self, fi, cands, alt, line, depth};
            r = call_method(m_alternative_imports, a, 5);
            if (r != Py_None) goto done;
            Py_CLEAR(r);
        }
    }
    path = PyObject_GetAttr(fi, s_path);
    deeper = path != NULL ? PyLong_FromLong(d + 1) : NULL;
    if (deeper == NULL) goto done;
    /* (_candidate written out: a frame per candidate) */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(picked); i++) {
        if (candidate(PySequence_Fast_GET_ITEM(picked, i), &kind, &what) < 0) goto done;
        if (same_str(kind, s_def) || same_str(kind, s_var)) {
            r = answer(s_sym, path, what, NULL);
            goto done;
        }
        if (same_str(kind, s_import)) {
            PyObject *a[5] = {self, fi, what, follow, deeper};
            r = call_method(m_import_target, a, 4);
        } else if (fol) {
            PyObject *a[4] = {self, fi, what, deeper};
            r = call_method(m_binding_value, a, 3);
        } else {
            continue; /* a binding: the variable symbol (a later candidate) answers */
        }
        if (r != Py_None) goto done;
        Py_CLEAR(r);
    }
    if (candidate(first, &kind, &what) < 0) goto done;
    if (fol && same_str(kind, s_bind)) {
        value = PyObject_GetAttr(what, s_value);
        if (value == NULL || !str_ok(value)) goto done;
        if (starts(value, "key:")) { /* an item read we cannot follow */
            PyObject *a[6] = {self, fi, cands, picked, line, depth};
            r = call_method(m_before_item_read, a, 5);
            if (r != Py_None) goto done;
            Py_CLEAR(r);
        }
    }
    /* the name is bound here (so an outer scope does not see through), to a value we cannot
       follow: the module variable when there is one, else an unknown */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(cands); i++) {
        if (candidate(PySequence_Fast_GET_ITEM(cands, i), &kind, &what) < 0) goto done;
        if (same_str(kind, s_var)) {
            r = answer(s_sym, path, what, NULL);
            goto done;
        }
    }
    r = answer(s_unknown, path, scope, name);
done:
    Py_XDECREF(cands);
    Py_XDECREF(names);
    Py_XDECREF(picked);
    Py_XDECREF(path);
    Py_XDECREF(deeper);
    Py_XDECREF(alt);
    Py_XDECREF(value);
    return r;
}

static const char *const IN_SCOPE_PARAMS[] = {"fi",     "scope", "name", "line",
                                              "follow", "depth", "cands"};

/* the method: _lookup_in_scope(self, fi, scope, name, line, follow, depth, cands=None) */
static PyObject *core_in_scope(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                               PyObject *kwnames) {
    PyObject *a[7];
    if (method_args("_lookup_in_scope", IN_SCOPE_PARAMS, 7, 6, 5, args, nargsf, kwnames, a) < 0)
        return NULL;
    if (Py_EnterRecursiveCall(" in _lookup_in_scope")) return NULL;
    PyObject *r = in_scope(self, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    Py_LeaveRecursiveCall();
    return r;
}

static PyMethodDef IN_SCOPE = {
    "_lookup_in_scope", (PyCFunction)(void (*)(void))core_in_scope,
    METH_FASTCALL | METH_KEYWORDS,
    "_lookup_in_scope(fi, scope, name, line, follow, depth, cands=None): `name` in `scope`"
    " alone (indexer/lang/python/names.py `_lookup_in_scope_py`, in C)"};

static const char *const LOOKUP_PARAMS[] = {"fi", "scope", "name", "line", "depth", "key"};

/* the method: lookup_name(self, fi, scope, name, line, depth=0, key=None) */
static PyObject *core_lookup_name(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                                  PyObject *kwnames) {
    PyObject *a[6];
    if (method_args("lookup_name", LOOKUP_PARAMS, 6, 4, 4, args, nargsf, kwnames, a) < 0)
        return NULL;
    if (Py_EnterRecursiveCall(" in lookup_name")) return NULL;
    PyObject *r = lookup_name(self, a[0], a[1], a[2], a[3], a[4], a[5]);
    Py_LeaveRecursiveCall();
    return r;
}

static PyMethodDef LOOKUP_NAME = {
    "lookup_name", (PyCFunction)(void (*)(void))core_lookup_name, METH_FASTCALL | METH_KEYWORDS,
    "lookup_name(fi, scope, name, line, depth=0, key=None): (entity, rule) of a name read in a"
    " scope (indexer/lang/python/names.py `_lookup_name`, in C)"};

/* lookup_method(cls, kit) -> the methods lookup_name and _lookup_in_scope of cls (method
 * descriptors); kit:
 * (MAX_DEPTH, CLASS_FIRST, and SymbolFact's positions of kind, name, signature, decorators),
 * kept for every call of the method */
PyObject *core_lookup_method(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cls, *k;
    if (!PyArg_ParseTuple(args, "O!O!:lookup_method", &PyType_Type, &cls, &PyTuple_Type, &k))
        return NULL;
    if (PyTuple_GET_SIZE(k) != L_COUNT) {
        PyErr_SetString(PyExc_TypeError, "lookup_method: kit");
        return NULL;
    }
    long v[L_COUNT];
    for (int i = 0; i < L_COUNT; i++) {
        if (i == L_CLASS_FIRST) continue;
        v[i] = PyLong_Check(PyTuple_GET_ITEM(k, i)) ? PyLong_AsLong(PyTuple_GET_ITEM(k, i)) : -1;
        if (v[i] < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "lookup_method: kit");
            return NULL;
        }
    }
    if (methods_init() < 0 || lookup_strings() < 0) return NULL;
    Py_XSETREF(lookup_kit, Py_NewRef(k));
    lookup_max_depth = v[L_MAX_DEPTH];
    at_kind = v[L_KIND];
    at_name = v[L_NAME];
    at_signature = v[L_SIGNATURE];
    at_decorators = v[L_DECORATORS];
    sym_size = 1 + (at_kind > at_name ? at_kind : at_name);
    if (at_signature >= sym_size) sym_size = at_signature + 1;
    if (at_decorators >= sym_size) sym_size = at_decorators + 1;
    PyObject *lookup = PyDescr_NewMethod((PyTypeObject *)cls, &LOOKUP_NAME);
    PyObject *in = lookup != NULL ? PyDescr_NewMethod((PyTypeObject *)cls, &IN_SCOPE) : NULL;
    PyObject *both = in != NULL ? PyTuple_Pack(2, lookup, in) : NULL;
    Py_XDECREF(lookup);
    Py_XDECREF(in);
    return both;
}
