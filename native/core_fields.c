/*
 * tuple_fields: the fields of a named tuple type read as slots. A named tuple's field is a
 * `_tuplegetter`, a data descriptor CPython 3.11 does not specialise: every `fact.scope` of
 * the resolvers (~1M per quarter of Django's resolution) took the generic attribute path
 * (PyObject_GetAttr, the type's MRO lookup, the descriptor's call: ~90 instructions). A
 * read-only member descriptor (T_OBJECT_EX) at the offset of the tuple's item i reads the
 * same object, and the interpreter specialises it (LOAD_ATTR_SLOT: a type check and a
 * load). The type stays a tuple type: its instances, `_make`, `_replace`, marshal and the C
 * code reading items by index are unchanged.
 *
 * A member reads item i without a bounds check: every instance of the type must hold all its
 * fields, which the generated `__new__` and `_make` ensure, and typed_list (core_rows.c)
 * checks for the facts it makes from marshal's tuples. tests/test_tuple_fields.py.
 */
#include "core.h"

#include <stddef.h>
#include <structmember.h>

/* the descriptor installed for field i, or NULL when `descr` is none of ours */
static int is_ours(PyObject *descr, Py_ssize_t i) {
    if (!PyObject_TypeCheck(descr, &PyMemberDescr_Type)) return 0;
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    return m->type == T_OBJECT_EX && (m->flags & READONLY) &&
           m->offset == (Py_ssize_t)(offsetof(PyTupleObject, ob_item) + i * sizeof(PyObject *));
}

/* tuple_fields(cls) -> bool: make each field of `cls._fields` a read-only slot over its item,
 * when cls is a plain tuple type (no __dict__, no other slot, the generic attribute lookup)
 * whose field i reads item i (tried on an instance of 0..n-1); False, cls unchanged, else. */
PyObject *core_tuple_fields(PyObject *self, PyObject *args) {
    PyTypeObject *cls;
    if (!PyArg_ParseTuple(args, "O!:tuple_fields", &PyType_Type, &cls)) return NULL;
    if (!PyType_IsSubtype(cls, &PyTuple_Type) || cls == &PyTuple_Type ||
        cls->tp_basicsize != PyTuple_Type.tp_basicsize ||
        cls->tp_itemsize != PyTuple_Type.tp_itemsize || cls->tp_dictoffset != 0 ||
        cls->tp_getattro != PyObject_GenericGetAttr || !(cls->tp_flags & Py_TPFLAGS_HEAPTYPE))
        Py_RETURN_FALSE;
    PyObject *fields = PyObject_GetAttrString((PyObject *)cls, "_fields");
    if (fields == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    PyObject *probe = NULL, *result = Py_False;
    PyMemberDef *defs = NULL;
    Py_ssize_t n = PyTuple_Check(fields) ? PyTuple_GET_SIZE(fields) : 0, i;
    if (n == 0) goto done;
    probe = cls->tp_alloc(cls, n);
    if (probe == NULL) goto error;
    for (i = 0; i < n; i++) {
        PyObject *k = PyLong_FromSsize_t(i);
        if (k == NULL) goto error;
        PyTuple_SET_ITEM(probe, i, k);
    }
    int installed = 1;
    for (i = 0; i < n; i++) {  /* every field reads its item, or nothing is changed */
        PyObject *name = PyTuple_GET_ITEM(fields, i);
        if (!PyUnicode_Check(name)) goto done;
        PyObject *descr = PyDict_GetItemWithError(cls->tp_dict, name);
        if (descr == NULL) {
            if (PyErr_Occurred()) goto error;
            goto done;
        }
        if (is_ours(descr, i)) continue;
        installed = 0;
        descrgetfunc get = Py_TYPE(descr)->tp_descr_get;
        if (get == NULL || Py_TYPE(descr)->tp_descr_set == NULL) goto done;
        PyObject *got = get(descr, probe, (PyObject *)cls);
        if (got == NULL) goto error;
        int same = got == PyTuple_GET_ITEM(probe, i);
        Py_DECREF(got);
        if (!same) goto done;
    }
    result = Py_True;
    if (installed) goto done;
    /* (kept for the process: the type's descriptors point at them) */
    defs = PyMem_Calloc((size_t)n, sizeof(PyMemberDef));
    if (defs == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    for (i = 0; i < n; i++) {
        const char *utf8 = PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, i));
        if (utf8 == NULL) goto error;
        char *copy = PyMem_Malloc(strlen(utf8) + 1);
        if (copy == NULL) {
            PyErr_NoMemory();
            goto error;
        }
        strcpy(copy, utf8);
        defs[i].name = copy;
        defs[i].type = T_OBJECT_EX;
        defs[i].offset = (Py_ssize_t)(offsetof(PyTupleObject, ob_item) + i * sizeof(PyObject *));
        defs[i].flags = READONLY;
    }
    for (i = 0; i < n; i++) {
        PyObject *descr = PyDescr_NewMember(cls, &defs[i]);
        if (descr == NULL) goto error;
        int rc = PyObject_SetAttr((PyObject *)cls, PyTuple_GET_ITEM(fields, i), descr);
        Py_DECREF(descr);
        if (rc < 0) goto error; /* (the fields set before read the same items) */
    }
done:
    Py_XDECREF(probe);
    Py_DECREF(fields);
    return Py_NewRef(result);
error:
    /* (defs, if made, may be held by descriptors already set: kept) */
    Py_XDECREF(probe);
    Py_DECREF(fields);
    return NULL;
}
