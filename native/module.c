/*
 * The _syntax extension module: the generic query runner (Query), the fact engine
 * (FactEngine) and the chain readers. See native/runner.py for how they are used and when
 * they must not be.
 */

#include "runner.h"

#include "tree_sitter/vendored.h"

/* setup.py defines it: the digest of the sources this build compiled (native/build_digest.py) */
#ifndef CODEIMPACT_SOURCE_DIGEST
#define CODEIMPACT_SOURCE_DIGEST ""
#endif

static PyMethodDef syntax_methods[] = {
    {"chain_text", (PyCFunction)chain_text, METH_O, chain_text_doc},
    {"callee_chain_text", (PyCFunction)(void (*)(void))callee_chain_text, METH_FASTCALL,
     callee_chain_text_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef syntax_module = {
    PyModuleDef_HEAD_INIT, "_syntax",
    "codeimpact native query runner and fact engine over py-tree-sitter trees "
    "(see native/runner.py)",
    -1, syntax_methods,
};

PyMODINIT_FUNC PyInit__syntax(void) {
    if (PyType_Ready(&QueryType) < 0 || PyType_Ready(&FactEngineType) < 0 || facts_init() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&syntax_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", CODEIMPACT_VENDORED_PY_TREE_SITTER) <
            0 ||
        PyModule_AddStringConstant(m, "SOURCE_DIGEST", CODEIMPACT_SOURCE_DIGEST) < 0 ||
        PyModule_AddObjectRef(m, "Query", (PyObject *)&QueryType) < 0 ||
        PyModule_AddObjectRef(m, "FactEngine", (PyObject *)&FactEngineType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
