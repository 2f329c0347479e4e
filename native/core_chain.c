/*
 * Values.eval_chain (indexer/lang/python/values.py `_eval_chain`, the reference and the
 * fallback): the value of a chain (`a.b().c`) read in a scope, ~31K calls per Django
 * resolution of every 4th file, each ~110 bytecodes of dict reads and tuples around the calls
 * that find values (lookup_name, getattr, _apply_suffix, property_read, member_reads,
 * chain_head, _cut: called back, in the same order with the same arguments). Installed as the
 * class's method (a method descriptor: CPython 3.11 specialises its calls as it does a Python
 * method's, no wrapper frame). A change there is made here too (tests/test_core_chain.py
 * compares every answer, read and table the two make).
 */

#include "core_methods.h"

#include <structmember.h>

/* what the method reads of its Python modules, set once where it is installed (chain_method):
 * MAX_DEPTH, parse_steps, engine/chains.py fold, the kind `alts` */
enum { K_MAX_DEPTH, K_PARSE_STEPS, K_FOLD, K_ALTS, K_COUNT };
static PyObject *kit;
static long max_depth;
static PyObject *s_lookups, *s_folds, *s_memo, *s_cuts, *s_member_names, *s_path, *s_inst,
    *s_super, *m_lookup, *m_cut, *m_chain_head, *m_apply_suffix, *m_getattr,
    *m_property_read, *m_member_reads;

PyObject *zero; /* (the default depth) */

int methods_init(void) {
    if (m_member_reads != NULL) return 0;
    zero = PyLong_FromLong(0);
    if (zero == NULL) return -1;
    struct {
        PyObject **slot;
        const char *text;
    } all[] = {{&s_lookups, "_lookups"},         {&s_folds, "_folds"},
               {&s_memo, "memo"},                {&s_cuts, "cuts"},
               {&s_member_names, "member_names"}, {&s_path, "path"},
               {&s_inst, "inst"},                {&s_super, "super"},
               {&m_lookup, "lookup_name"},       {&m_cut, "_cut"},
               {&m_chain_head, "chain_head"},    {&m_apply_suffix, "_apply_suffix"},
               {&m_getattr, "getattr"},          {&m_property_read, "property_read"},
               {&m_member_reads, "member_reads"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(all[i].text);
        if (s == NULL) return -1;
        *all[i].slot = s;
    }
    return 0;
}

/* a depth argument as a C long (a huge one clamped: only compared with the bound) */
int depth_of(PyObject *depth, long *d) {
    int overflow;
    *d = PyLong_AsLongAndOverflow(depth, &overflow);
    if (*d == -1 && PyErr_Occurred()) return -1;
    if (overflow) *d = overflow > 0 ? LONG_MAX : LONG_MIN;
    return 0;
}

/* `self.NAME(*args)` (n arguments after self; args[0] is self) */
PyObject *call_method(PyObject *name, PyObject **args, Py_ssize_t n) {
    return PyObject_VectorcallMethod(name, args, (size_t)(n + 1), NULL);
}

/* the memo's type whose `cuts` is a slot (engine/memo.py Memo's __slots__), and its offset:
 * read in place, not through the type's descriptor (~120 instructions a read, two reads per
 * lookup); found at the first read of a memo of that type */
static PyTypeObject *slot_type;
static Py_ssize_t slot_offset;

/* memo.cuts (new reference) */
static PyObject *cuts_of(PyObject *memo) {
    if (Py_TYPE(memo) != slot_type) {
        PyObject *d = PyObject_GetAttr((PyObject *)Py_TYPE(memo), s_cuts);
        if (d == NULL) return NULL;
        if (Py_IS_TYPE(d, &PyMemberDescr_Type) &&
            ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX) {
            Py_XSETREF(slot_type, (PyTypeObject *)Py_NewRef(Py_TYPE(memo)));
            slot_offset = ((PyMemberDescrObject *)d)->d_member->offset;
        }
        Py_DECREF(d);
        if (Py_TYPE(memo) != slot_type) return PyObject_GetAttr(memo, s_cuts);
    }
    PyObject *cuts = *(PyObject **)((char *)memo + slot_offset);
    if (cuts == NULL) PyErr_SetObject(PyExc_AttributeError, s_cuts);
    return Py_XNewRef(cuts);
}

/* `self.memo.cuts` (new reference) */
PyObject *memo_cuts(PyObject *self) {
    PyObject *memo = PyObject_GetAttr(self, s_memo);
    PyObject *cuts = memo != NULL ? cuts_of(memo) : NULL;
    Py_XDECREF(memo);
    return cuts;
}

/* `reads.extend(more)` */
static int extend(PyObject *reads, PyObject *more) {
    if (PyList_CheckExact(reads)) {
        Py_ssize_t n = PyList_GET_SIZE(reads);
        return PyList_SetSlice(reads, n, n, more);
    }
    PyObject *r = PyObject_CallMethod(reads, "extend", "O", more);
    Py_XDECREF(r);
    return r != NULL ? 0 : -1;
}

/* `ent[0]`'s kind is `kind` (an entity's first field, a str): 1, 0 (-1: not an entity) */
static int kind_is(PyObject *found, PyObject *kind) {
    PyObject *ent = PyTuple_Check(found) && PyTuple_GET_SIZE(found) ? PyTuple_GET_ITEM(found, 0)
                                                                    : NULL;
    PyObject *k = ent != NULL && PyTuple_Check(ent) && PyTuple_GET_SIZE(ent)
                      ? PyTuple_GET_ITEM(ent, 0)
                      : NULL;
    if (k == NULL) {
        PyErr_SetString(PyExc_TypeError, "eval_chain: a value is not (entity, rule)");
        return -1;
    }
    return PyUnicode_CheckExact(k) && same_str(k, kind);
}

/* the (entity, rule) pair's fields (borrowed), or -1 */
static int pair_of(PyObject *found, PyObject **ent, PyObject **rule) {
    if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2) {
        PyErr_SetString(PyExc_TypeError, "eval_chain: a value is not (entity, rule)");
        return -1;
    }
    *ent = PyTuple_GET_ITEM(found, 0);
    *rule = PyTuple_GET_ITEM(found, 1);
    return 0;
}

/* `found = self._apply_suffix(found[0], found[1], suffix, depth)` when found and suffix:
 * found replaced (its reference given up), NULL on error */
static PyObject *apply_suffix(PyObject *self, PyObject *found, PyObject *suffix,
                              PyObject *depth) {
    if (found == Py_None || PyUnicode_GET_LENGTH(suffix) == 0) return found;
    PyObject *ent, *rule;
    if (pair_of(found, &ent, &rule) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    PyObject *a[5] = {self, ent, rule, suffix, depth};
    PyObject *r = call_method(m_apply_suffix, a, 4);
    Py_DECREF(found);
    return r;
}

/* the steps after the head, from its value `found` (a new reference, given up): kept per
 * (value, rest, whether reads are collected) in `folds` */
static PyObject *walk(PyObject *self, PyObject *found, PyObject *chain, PyObject *steps,
                      PyObject *depth, long d, PyObject *reads, PyObject *folds) {
    PyObject *rest = PyTuple_GetSlice(steps, 1, PyTuple_GET_SIZE(steps)), *key = NULL;
    PyObject *cuts = NULL, *got = NULL, *deeper = NULL, *members = NULL, *result = NULL;
    if (rest == NULL) goto done;
    key = PyTuple_Pack(3, found, chain != Py_None ? chain : rest,
                       reads != Py_None ? Py_True : Py_False);
    if (key == NULL) goto done;
    PyObject *hit = PyDict_GetItemWithError(folds, key);
    if (hit != NULL) {
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 2) {
            PyErr_SetString(PyExc_TypeError, "eval_chain: a fold kept is not a pair");
            goto done;
        }
        int some = PyObject_IsTrue(PyTuple_GET_ITEM(hit, 1));
        if (some < 0 || (some && extend(reads, PyTuple_GET_ITEM(hit, 1)) < 0)) goto done;
        result = Py_NewRef(PyTuple_GET_ITEM(hit, 0));
        goto done;
    }
    if (PyErr_Occurred()) goto done;
    cuts = memo_cuts(self);
    deeper = cuts != NULL ? PyLong_FromLong(d + 1) : NULL;
    if (deeper == NULL) goto done;
    if (reads != Py_None) {
        got = PyList_New(0);
        if (got == NULL) goto done;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(rest); i++) {
        PyObject *step = PyTuple_GET_ITEM(rest, i);
        if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 2 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(step, 1))) {
            PyErr_SetString(PyExc_TypeError, "eval_chain: a step is not (name, suffix)");
            goto done;
        }
        PyObject *name = PyTuple_GET_ITEM(step, 0), *suffix = PyTuple_GET_ITEM(step, 1);
        if (got != NULL) { /* (member_reads' tests written out) */
            int inst = kind_is(found, s_inst), alts = 0;
            if (inst < 0) goto done;
            if (inst) {
                if (members == NULL) {
                    members = PyObject_GetAttr(self, s_member_names);
                    if (members == NULL) goto done;
                }
                int in = PySequence_Contains(members, name);
                if (in < 0) goto done;
                if (in) {
                    PyObject *a[5] = {self, found, name, depth, got};
                    PyObject *r = call_method(m_property_read, a, 4);
                    if (r == NULL) goto done;
                    Py_DECREF(r);
                }
            } else if ((alts = kind_is(found, PyTuple_GET_ITEM(kit, K_ALTS))) != 0) {
                if (alts < 0) goto done;
                PyObject *a[5] = {self, found, name, depth, got};
                PyObject *r = call_method(m_member_reads, a, 4);
                if (r == NULL) goto done;
                Py_DECREF(r);
            }
        }
        PyObject *ent, *rule;
        if (pair_of(found, &ent, &rule) < 0) goto done;
        PyObject *a[5] = {self, ent, name, rule, deeper};
        PyObject *next = call_method(m_getattr, a, 4);
        if (next == NULL) goto done;
        Py_SETREF(found, next);
        found = apply_suffix(self, found, suffix, depth);
        if (found == NULL) goto done;
        if (found == Py_None) break;
    }
    if (got != NULL && PyList_GET_SIZE(got) && extend(reads, got) < 0) goto done;
    PyObject *now = memo_cuts(self);
    int same = now != NULL ? PyObject_RichCompareBool(now, cuts, Py_EQ) : -1;
    Py_XDECREF(now);
    if (same < 0) goto done;
    if (same) {
        PyObject *kept = got != NULL && PyList_GET_SIZE(got) ? PyList_AsTuple(got) : PyTuple_New(0);
        PyObject *value = kept != NULL ? PyTuple_Pack(2, found, kept) : NULL;
        int rc = value != NULL ? PyDict_SetItem(folds, key, value) : -1;
        Py_XDECREF(kept);
        Py_XDECREF(value);
        if (rc < 0) goto done;
    }
    result = Py_NewRef(found);
done:
    Py_XDECREF(found);
    Py_XDECREF(rest);
    Py_XDECREF(key);
    Py_XDECREF(cuts);
    Py_XDECREF(got);
    Py_XDECREF(deeper);
    Py_XDECREF(members);
    return result;
}

/* `self.lookup_name(fi, scope, name, line, depth[, key])` */
static PyObject *lookup(PyObject *self, PyObject *fi, PyObject *scope, PyObject *name,
                        PyObject *line, PyObject *depth, PyObject *key) {
    PyObject *a[7] = {self, fi, scope, name, line, depth, key};
    return call_method(m_lookup, a, key != NULL ? 6 : 5);
}

/* the chain's value from its steps (values.py `_eval_chain` past its text's tests) */
static PyObject *from_steps(PyObject *self, PyObject *fi, PyObject *scope, PyObject *chain,
                            PyObject *line, PyObject *depth, long d, PyObject *reads,
                            PyObject *steps) {
    if (!PyTuple_Check(steps) || PyTuple_GET_SIZE(steps) < 1) {
        PyErr_SetString(PyExc_TypeError, "eval_chain: steps are not a tuple");
        return NULL;
    }
    PyObject *head = PyTuple_GET_ITEM(steps, 0);
    if (!PyTuple_Check(head) || PyTuple_GET_SIZE(head) != 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(head, 1))) {
        PyErr_SetString(PyExc_TypeError, "eval_chain: a step is not (name, suffix)");
        return NULL;
    }
    PyObject *name = PyTuple_GET_ITEM(head, 0), *suffix = PyTuple_GET_ITEM(head, 1);
    PyObject *seen = PyObject_GetAttr(self, s_lookups), *key = NULL, *found = NULL;
    PyObject *path = NULL, *result = NULL, *folds = NULL;
    if (seen == NULL) return NULL;
    if (seen != Py_None && d <= max_depth) {
        if (!PyDict_Check(seen)) {
            PyErr_SetString(PyExc_TypeError, "eval_chain: the lookups are not a dict");
            goto done;
        }
        path = PyObject_GetAttr(fi, s_path);
        key = path != NULL ? PyTuple_Pack(3, path, scope, name) : NULL;
        if (key == NULL) goto done;
        found = PyDict_GetItemWithError(seen, key);
        if (found == NULL && PyErr_Occurred()) goto done;
        Py_XINCREF(found);
    }
    /* (found NULL: MISSING) */
    Py_ssize_t n = PyTuple_GET_SIZE(steps);
    if (n == 1 && PyUnicode_GET_LENGTH(suffix) == 0) { /* a name alone */
        result = found != NULL ? Py_NewRef(found)
                               : lookup(self, fi, scope, name, line, depth,
                                        key != NULL ? key : Py_None);
        goto done;
    }
    if (PyUnicode_CheckExact(name) && same_str(name, s_super)) {
        Py_XDECREF(found);
        PyObject *a[7] = {self, fi, scope, head, line, depth, reads};
        found = call_method(m_chain_head, a, 6);
        if (found == NULL) goto done;
    } else { /* (chain_head's lookup written out: most heads) */
        if (found == NULL) {
            found = lookup(self, fi, scope, name, line, depth, key != NULL ? key : Py_None);
            if (found == NULL) goto done;
        }
        found = apply_suffix(self, found, suffix, depth);
        if (found == NULL) goto done;
    }
    if (found == Py_None || n == 1) {
        result = found;
        found = NULL;
        goto done;
    }
    folds = PyObject_GetAttr(self, s_folds);
    if (folds == NULL) goto done;
    if (folds == Py_None || d >= max_depth) {
        PyObject *rest = PyTuple_GetSlice(steps, 1, n);
        if (rest == NULL) goto done;
        PyObject *a[5] = {self, found, rest, depth, reads};
        result = PyObject_Vectorcall(PyTuple_GET_ITEM(kit, K_FOLD), a, 5, NULL);
        Py_DECREF(rest);
        goto done;
    }
    if (!PyDict_Check(folds)) {
        PyErr_SetString(PyExc_TypeError, "eval_chain: the folds are not a dict");
        goto done;
    }
    result = walk(self, found, chain, steps, depth, d, reads, folds);
    found = NULL; /* (given up to walk) */
done:
    Py_XDECREF(seen);
    Py_XDECREF(path);
    Py_XDECREF(key);
    Py_XDECREF(found);
    Py_XDECREF(folds);
    return result;
}

/* a chain without '.', '(' nor '[' (a name alone: two thirds of the chains evaluated; an
 * identifier holds none of the three) */
static int plain_name(PyObject *chain) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
    int kind = PyUnicode_KIND(chain);
    const void *data = PyUnicode_DATA(chain);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '.' || c == '(' || c == '[') return 0;
    }
    return 1;
}

static PyObject *eval_chain(PyObject *self, PyObject *fi, PyObject *scope, PyObject *chain,
                            PyObject *line, PyObject *depth, PyObject *reads, PyObject *steps) {
    long d;
    if (depth_of(depth, &d) < 0) return NULL;
    PyObject *made = NULL, *result = NULL;
    if (steps == Py_None) {
        if (chain == Py_None) Py_RETURN_NONE;
        if (!PyUnicode_Check(chain)) {
            PyErr_SetString(PyExc_TypeError, "eval_chain: a chain is not a str");
            return NULL;
        }
        if (PyUnicode_GET_LENGTH(chain) == 0 || PyUnicode_READ_CHAR(chain, 0) == '?')
            Py_RETURN_NONE; /* (engine/chains.py evaluate) */
        if (d > max_depth) {
            PyObject *a[1] = {self};
            return call_method(m_cut, a, 0);
        }
        if (plain_name(chain)) {
            /* (the file's lookups read here first: lookup_name's, a frame per hit) */
            PyObject *seen = PyObject_GetAttr(self, s_lookups);
            if (seen == NULL) return NULL;
            if (seen == Py_None) {
                Py_DECREF(seen);
                return lookup(self, fi, scope, chain, line, depth, NULL);
            }
            PyObject *path = PyDict_Check(seen) ? PyObject_GetAttr(fi, s_path) : NULL;
            PyObject *key = path != NULL ? PyTuple_Pack(3, path, scope, chain) : NULL;
            PyObject *hit = key != NULL ? PyDict_GetItemWithError(seen, key) : NULL;
            if (hit != NULL)
                result = Py_NewRef(hit);
            else if (key != NULL && !PyErr_Occurred())
                result = lookup(self, fi, scope, chain, line, depth, key);
            else if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "eval_chain: the lookups are not a dict");
            Py_XDECREF(path);
            Py_XDECREF(key);
            Py_DECREF(seen);
            return result;
        }
        made = PyObject_CallOneArg(PyTuple_GET_ITEM(kit, K_PARSE_STEPS), chain);
        if (made == NULL) return NULL;
        int some = PyObject_IsTrue(made);
        if (some <= 0) {
            Py_DECREF(made);
            if (some < 0) return NULL;
            Py_RETURN_NONE;
        }
        steps = made;
    }
    result = from_steps(self, fi, scope, chain, line, depth, d, reads, steps);
    Py_XDECREF(made);
    return result;
}

/* a method's arguments by position or keyword into `a` (n parameters, the first `required`
 * required, the others None unless given; `depth`, at `at_depth`, 0): 0, or -1 */
int method_args(const char *method, const char *const *params, int n, int required,
                       int at_depth, PyObject *const *args, Py_ssize_t nargsf,
                       PyObject *kwnames, PyObject **a) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError, "%s: too many arguments", method);
        return -1;
    }
    for (int i = 0; i < n; i++) a[i] = i < nargs ? args[i] : i < required ? NULL : Py_None;
    Py_ssize_t nk = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *kw = PyTuple_GET_ITEM(kwnames, k);
        int at = -1;
        for (int i = 0; i < n && at < 0; i++)
            if (PyUnicode_CompareWithASCIIString(kw, params[i]) == 0) at = i;
        if (at < 0 || at < nargs) {
            PyErr_Format(PyExc_TypeError, "%s: an unexpected argument %R", method, kw);
            return -1;
        }
        a[at] = args[nargs + k];
    }
    for (int i = 0; i < required; i++)
        if (a[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s: missing argument %s", method, params[i]);
            return -1;
        }
    if (a[at_depth] == Py_None && (nargs <= at_depth)) {
        int given = 0; /* (a depth given as None stays None: an error below, as in Python) */
        for (Py_ssize_t k = 0; k < nk; k++)
            given |= PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k),
                                                      params[at_depth]) == 0;
        if (!given) a[at_depth] = zero;
    }
    return 0;
}

static const char *const CHAIN_PARAMS[] = {"fi",    "scope", "chain", "line",
                                           "depth", "reads", "steps"};

/* the method: eval_chain(self, fi, scope, chain, line, depth=0, reads=None, steps=None) */
static PyObject *core_eval_chain(PyObject *self, PyObject *const *args, Py_ssize_t nargsf,
                                 PyObject *kwnames) {
    PyObject *a[7];
    if (method_args("eval_chain", CHAIN_PARAMS, 7, 4, 4, args, nargsf, kwnames, a) < 0)
        return NULL;
    /* (one level of Python's recursion bound, as the Python method's frame is) */
    if (Py_EnterRecursiveCall(" in eval_chain")) return NULL;
    PyObject *r = eval_chain(self, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    Py_LeaveRecursiveCall();
    return r;
}

static PyMethodDef EVAL_CHAIN = {
    "eval_chain", (PyCFunction)(void (*)(void))core_eval_chain, METH_FASTCALL | METH_KEYWORDS,
    "eval_chain(fi, scope, chain, line, depth=0, reads=None, steps=None): (entity, rule) of a"
    " chain (indexer/lang/python/values.py `_eval_chain`, in C)"};

/* chain_method(cls, kit) -> the method eval_chain of cls (a method descriptor); kit: (MAX_DEPTH,
 * parse_steps, fold, ALTS), kept for every call of the method */
PyObject *core_chain_method(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cls, *k;
    if (!PyArg_ParseTuple(args, "O!O!:chain_method", &PyType_Type, &cls, &PyTuple_Type, &k))
        return NULL;
    if (PyTuple_GET_SIZE(k) != K_COUNT || !PyLong_Check(PyTuple_GET_ITEM(k, K_MAX_DEPTH)) ||
        !PyUnicode_CheckExact(PyTuple_GET_ITEM(k, K_ALTS))) {
        PyErr_SetString(PyExc_TypeError, "chain_method: kit");
        return NULL;
    }
    long md = PyLong_AsLong(PyTuple_GET_ITEM(k, K_MAX_DEPTH));
    if (md == -1 && PyErr_Occurred()) return NULL;
    if (methods_init() < 0) return NULL;
    Py_XSETREF(kit, Py_NewRef(k));
    max_depth = md;
    return PyDescr_NewMethod((PyTypeObject *)cls, &EVAL_CHAIN);
}
