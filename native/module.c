/*
 * The _syntax extension module: the generic query runner (Query), the fact engine
 * (FactEngine) and the chain readers. See native/runner.py for how they are used and when
 * they must not be.
 */

#include "runner.h"

#include "tree_sitter/vendored.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

/* setup.py defines it: the digest of the sources this build compiled (native/build_digest.py) */
#ifndef CODEIMPACT_SOURCE_DIGEST
#define CODEIMPACT_SOURCE_DIGEST ""
#endif
/* and their names, sizes and modification times then (build_digest.source_stamp) */
#ifndef CODEIMPACT_SOURCE_STAMP
#define CODEIMPACT_SOURCE_STAMP ""
#endif

PyDoc_STRVAR(plain_tuples_doc,
             "plain_tuples(items) -> [tuple(x) for x in items]: the facts of a list as plain "
             "tuples (what marshal writes), without the comprehension's bytecode per fact");

/* `[tuple(x) for x in items]` object for object: an exact tuple is itself, a tuple
 * subclass's items go into a new tuple, anything else is tuple()'s */
static PyObject *plain_tuples(PyObject *module, PyObject *items) {
    (void)module;
    if (!PyList_CheckExact(items)) {
        PyErr_SetString(PyExc_TypeError, "plain_tuples() takes a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(items, i), *t;
        if (PyTuple_CheckExact(x)) {
            t = Py_NewRef(x);
        } else if (PyTuple_Check(x)) {
            Py_ssize_t k = PyTuple_GET_SIZE(x);
            t = PyTuple_New(k);
            for (Py_ssize_t j = 0; t != NULL && j < k; j++)
                PyTuple_SET_ITEM(t, j, Py_NewRef(PyTuple_GET_ITEM(x, j)));
        } else {
            t = PySequence_Tuple(x);
        }
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

PyDoc_STRVAR(set_death_signal_doc,
             "set_death_signal(sig) -> bool: prctl(PR_SET_PDEATHSIG, sig), whether the kernel "
             "will send sig to this process when the thread that forked it exits (False where "
             "there is no prctl); indexer/lifeline.py, without ctypes' import in every run");

static PyObject *set_death_signal(PyObject *module, PyObject *arg) {
    (void)module;
    long sig = PyLong_AsLong(arg);
    if (sig == -1 && PyErr_Occurred()) return NULL;
#ifdef __linux__
    return PyBool_FromLong(prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL) == 0);
#else
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef syntax_methods[] = {
    {"set_death_signal", (PyCFunction)set_death_signal, METH_O, set_death_signal_doc},
    {"plain_tuples", (PyCFunction)plain_tuples, METH_O, plain_tuples_doc},
    {"chain_text", (PyCFunction)chain_text, METH_O, chain_text_doc},
    {"callee_chain_text", (PyCFunction)(void (*)(void))callee_chain_text, METH_FASTCALL,
     callee_chain_text_doc},
    {"cached_chain", (PyCFunction)cached_chain, METH_O, cached_chain_doc},
    {"cached_callee_chain", (PyCFunction)cached_callee_chain, METH_O, cached_callee_chain_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef syntax_module = {
    PyModuleDef_HEAD_INIT, "_syntax",
    "codeimpact native query runner and fact engine over py-tree-sitter trees "
    "(see native/runner.py)",
    -1, syntax_methods,
};

PyMODINIT_FUNC PyInit__syntax(void) {
    if (PyType_Ready(&QueryType) < 0 || PyType_Ready(&FactEngineType) < 0 ||
        PyType_Ready(&CallSitesType) < 0 || facts_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&syntax_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", CODEIMPACT_VENDORED_PY_TREE_SITTER) <
            0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", CODEIMPACT_SOURCE_DIGEST) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_STAMP", CODEIMPACT_SOURCE_STAMP) < 0 ||
        PyModule_AddObjectRef(m, "Query", (PyObject *)&QueryType) < 0 ||
        PyModule_AddObjectRef(m, "FactEngine", (PyObject *)&FactEngineType) < 0 ||
        PyModule_AddObjectRef(m, "CallSites", (PyObject *)&CallSitesType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
