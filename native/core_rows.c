/*
 * A file's definitions as symbol rows and CONTAINS edges (indexer/lang/python/playback.py
 * Playback.definitions, whose Python loop stays as the reference and the fallback): the one
 * pass every definition of a build makes, without a Python frame or an f-string per row.
 */

#include "core.h"

/* A tuple of `type` (a tuple subclass without a __dict__: SymbolRow, Edge) holding `items`,
 * whose references it steals (all of them, also on failure). */
static PyObject *typed_tuple(PyTypeObject *type, PyObject **items, Py_ssize_t n) {
    PyObject *t = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] == NULL) goto done;
    t = type->tp_alloc(type, n);
    if (t == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTuple_SET_ITEM(t, i, items[i]);
        items[i] = NULL;
    }
done:
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(items[i]);
    return t;
}

/* `a.b` (PyUnicode_FromFormat parses its format at every call). */
static PyObject *dotted(PyObject *a, PyObject *b) {
    Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    Py_UCS4 most = Py_MAX(PyUnicode_MAX_CHAR_VALUE(a), PyUnicode_MAX_CHAR_VALUE(b));
    PyObject *out = PyUnicode_New(na + 1 + nb, most);
    if (out == NULL) return NULL;
    if (PyUnicode_CopyCharacters(out, 0, a, 0, na) < 0 ||
        PyUnicode_WriteChar(out, na, '.') < 0 ||
        PyUnicode_CopyCharacters(out, na + 1, b, 0, nb) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* Appends `item` (stolen) to the list `out`. */
static int append_new(PyObject *out, PyObject *item) {
    if (item == NULL) return -1;
    int rc = PyList_Append(out, item);
    Py_DECREF(item);
    return rc;
}

/* symbol_rows(symbols, rows, edges, path, module, language, is_test, contains, unnamed, strip,
 * row_type, edge_type): for each SymbolFact (local, kind, name, start_line, end_line, start_byte,
 * end_byte, signature, exported, ...) appends to `rows` the row_type (uid, kind, name,
 * qualified, path, start_line, end_line, start_byte, end_byte, signature, exported, is_test,
 * language) and, unless it is the module symbol (local ""), to `edges` the edge_type
 * ("CONTAINS", parent uid, uid, contains, "scope", start_line). uid is `path::local`; the
 * qualified name is `module.local` (`module` alone for the module symbol, `local` alone in a
 * file without one) with a local holding `#` passed through `strip` first; an empty name is
 * `unnamed()`'s, called once. */
PyObject *core_symbol_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *symbols, *rows, *edges, *path, *module, *language, *is_test, *contains, *unnamed,
        *strip;
    PyTypeObject *row_type, *edge_type;
    if (!PyArg_ParseTuple(args, "OO!O!UUUOOOOO!O!:symbol_rows", &symbols, &PyList_Type, &rows,
                          &PyList_Type, &edges, &path, &module, &language,
                          &is_test, &contains, &unnamed, &strip, &PyType_Type, &row_type,
                          &PyType_Type, &edge_type))
        return NULL;
    if (!PyType_IsSubtype(row_type, &PyTuple_Type) || !PyType_IsSubtype(edge_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "symbol_rows: the row and edge types must be tuples");
        return NULL;
    }
    int in_module = PyUnicode_GET_LENGTH(module) > 0;
    PyObject *prefix = PyUnicode_FromFormat("%U::", path);
    PyObject *rel = PyUnicode_InternFromString("CONTAINS");
    PyObject *scope = PyUnicode_InternFromString("scope");
    PyObject *name_of_module = NULL; /* unnamed()'s, once */
    PyObject *seq = PySequence_Fast(symbols, "symbol_rows: the symbols are no sequence");
    if (seq == NULL || prefix == NULL || rel == NULL || scope == NULL) goto error;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(s) || PyTuple_GET_SIZE(s) < 9) {
            PyErr_SetString(PyExc_TypeError, "symbol_rows: a symbol is no SymbolFact");
            goto error;
        }
        PyObject *local = PyTuple_GET_ITEM(s, 0), *name = PyTuple_GET_ITEM(s, 2);
        if (!PyUnicode_Check(local) || !PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "symbol_rows: a symbol's local or name is no str");
            goto error;
        }
        if (PyUnicode_GET_LENGTH(name) == 0) {
            if (name_of_module == NULL && (name_of_module = PyObject_CallNoArgs(unnamed)) == NULL)
                goto error;
            name = name_of_module;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(local);
        PyObject *uid = PyUnicode_Concat(prefix, local);
        if (uid == NULL) goto error;
        PyObject *qualified;
        if (len == 0) {
            qualified = Py_NewRef(module);
        } else {
            Py_ssize_t dup = PyUnicode_FindChar(local, '#', 0, len, 1);
            if (dup == -2) {
                Py_DECREF(uid);
                goto error;
            }
            PyObject *plain = dup >= 0 ? PyObject_CallOneArg(strip, local) : Py_NewRef(local);
            if (plain == NULL || !in_module) {
                qualified = plain;
            } else {
                qualified = dotted(module, plain);
                Py_DECREF(plain);
            }
            if (qualified == NULL) {
                Py_DECREF(uid);
                goto error;
            }
        }
        PyObject *row[13] = {
            Py_NewRef(uid), Py_NewRef(PyTuple_GET_ITEM(s, 1)), Py_NewRef(name), qualified,
            Py_NewRef(path), Py_NewRef(PyTuple_GET_ITEM(s, 3)), Py_NewRef(PyTuple_GET_ITEM(s, 4)),
            Py_NewRef(PyTuple_GET_ITEM(s, 5)), Py_NewRef(PyTuple_GET_ITEM(s, 6)),
            Py_NewRef(PyTuple_GET_ITEM(s, 7)), Py_NewRef(PyTuple_GET_ITEM(s, 8)),
            Py_NewRef(is_test), Py_NewRef(language),
        };
        if (append_new(rows, typed_tuple(row_type, row, 13)) < 0) {
            Py_DECREF(uid);
            goto error;
        }
        if (len == 0) {
            Py_DECREF(uid);
            continue;
        }
        /* the parent's uid: `path::` and the local up to its last dot */
        Py_ssize_t dot = PyUnicode_FindChar(local, '.', 0, len, -1);
        PyObject *parent = NULL;
        if (dot >= 0) {
            PyObject *head = PyUnicode_Substring(local, 0, dot);
            if (head != NULL) {
                parent = PyUnicode_Concat(prefix, head);
                Py_DECREF(head);
            }
        } else if (dot == -1) {
            parent = Py_NewRef(prefix);
        }
        PyObject *edge[6] = {
            Py_NewRef(rel), parent, uid, Py_NewRef(contains), Py_NewRef(scope),
            Py_NewRef(PyTuple_GET_ITEM(s, 3)),
        };
        if (append_new(edges, typed_tuple(edge_type, edge, 6)) < 0) goto error;
    }
    Py_DECREF(seq);
    Py_DECREF(prefix);
    Py_DECREF(rel);
    Py_DECREF(scope);
    Py_XDECREF(name_of_module);
    Py_RETURN_NONE;
error:
    Py_XDECREF(seq);
    Py_XDECREF(prefix);
    Py_XDECREF(rel);
    Py_XDECREF(scope);
    Py_XDECREF(name_of_module);
    return NULL;
}

/* typed_list(type, items): [tuple.__new__(type, x) for x in items] (FileFacts' lists decoded
 * from marshal: every fact of a build passes here, twice for its calls), without a Python
 * call or a second tuple per item. `type` is a tuple subclass without a __dict__. An item of
 * another size than the type's `_fields` is refused (ValueError): a field read as a slot
 * (core_fields.c) reads its item unchecked. typed_list(type, items, mask, values): the strs
 * and ints of the fields in the bit mask `mask` (those of the tuples there too: parameters,
 * decorators) made the objects the SharedValues `values` keeps for their values
 * (core_shared.c). */
PyObject *core_typed_list(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    /* (METH_FASTCALL, its arguments read here: PyArg_ParseTuple's format was ~600
       instructions of each of a build's ~14K calls) */
    if (nargs != 2 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "typed_list takes (type, items[, mask, values])");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)args[0];
    PyObject *items = args[1];
    unsigned long long mask = 0; /* (the fields shared) */
    PyObject *values = nargs == 4 ? args[3] : NULL;
    if (!PyType_Check(type) || (values != NULL && !PyObject_TypeCheck(values, &SharedValues_Type))) {
        PyErr_SetString(PyExc_TypeError, "typed_list: a type and, with a mask, SharedValues");
        return NULL;
    }
    if (values != NULL) {
        mask = PyLong_AsUnsignedLongLong(args[2]);
        if (mask == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    }
    if (!PyType_IsSubtype(type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "typed_list: the type must be a tuple");
        return NULL;
    }
    Py_ssize_t want = -1; /* the type's number of fields, if it names them */
    PyObject *key = literal_str("_fields");
    if (key == NULL) return NULL;
    PyObject *fields = PyObject_GetAttr((PyObject *)type, key);
    if (fields == NULL)
        PyErr_Clear();
    else if (PyTuple_Check(fields))
        want = PyTuple_GET_SIZE(fields);
    Py_XDECREF(fields);
    /* A tuple of the items list that nothing else holds (marshal's, the list dropped after)
     * is made a `type` in place, not copied into a new one and freed: the type lays its
     * items out as a tuple does (a tuple subclass without a __dict__, weak references or a
     * finalizer, as tuple_fields requires). */
    int retype = type != &PyTuple_Type && PyList_CheckExact(items) &&
                 (type->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
                 type->tp_basicsize == PyTuple_Type.tp_basicsize &&
                 type->tp_itemsize == PyTuple_Type.tp_itemsize && type->tp_dictoffset == 0 &&
                 type->tp_weaklistoffset == 0 && type->tp_finalize == NULL &&
                 type->tp_del == NULL;
    PyObject *seq = PySequence_Fast(items, "typed_list: the items are no sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *t = PyTuple_CheckExact(x) ? Py_NewRef(x) : PySequence_Tuple(x);
        if (t == NULL) goto error;
        Py_ssize_t size = PyTuple_GET_SIZE(t);
        if (want >= 0 && size != want) {
            PyErr_Format(PyExc_ValueError, "typed_list: %zd items for the %zd fields of %s", size,
                         want, type->tp_name);
            Py_DECREF(t);
            goto error;
        }
        PyObject *made;
        if (retype && t == x && Py_REFCNT(x) == 2 && size > 0) { /* (the list's and t) */
            Py_SET_TYPE(x, (PyTypeObject *)Py_NewRef(type));
            made = t;
        } else {
            made = type->tp_alloc(type, size);
            if (made == NULL) {
                Py_DECREF(t);
                goto error;
            }
            for (Py_ssize_t k = 0; k < size; k++)
                PyTuple_SET_ITEM(made, k, Py_NewRef(PyTuple_GET_ITEM(t, k)));
            Py_DECREF(t);
        }
        PyList_SET_ITEM(out, i, made);
        for (Py_ssize_t k = 0; mask && k < size && k < 64; k++)
            if ((mask >> k) & 1 && share_value(values, &((PyTupleObject *)made)->ob_item[k], 2) < 0)
                goto error;
    }
    Py_DECREF(seq);
    return out;
error:
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}
