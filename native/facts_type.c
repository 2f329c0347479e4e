/*
 * The FactEngine type (see facts.c for what it does): its construction from a query in the
 * shared capture vocabulary and a language's node roles, field roles, options, hooks and
 * fact types, each checked against native/vocabulary.py with a clear error.
 */

#include "facts.h"

static const char *const OPTION_NAMES[OPTION_COUNT] = {
    "export_rule", "test_class",   "test_function", "signature_strip", "self_member",
    "type_prefix", "none_type",    "exports_name",  "heritage_kind",   "class_member",
    "parameter_callees", "value_enter", "value_enter_async", "value_store", "value_iteration",
    "value_literal", "value_item", "value_position", "names_suffix", "local_returned",
    "local_iterated", "local_passed", "argument_spread",
};

/* ------------------------------------------------------------------------- */
/* the type                                                                  */

static void engine_dealloc(FactEngine *self) {
    runner_free(self->runner);
    runner_matches_free(&self->kept);
    PyMem_RawFree(self->capture_vocab);
    PyMem_RawFree(self->construct_of);
    PyMem_RawFree(self->role);
    for (int i = 0; i < OPTION_COUNT; i++) Py_XDECREF(self->options[i]);
    for (int i = 0; i < HOOK_COUNT; i++) Py_XDECREF(self->hooks[i]);
    for (int i = 0; i < TYPE_COUNT; i++) Py_XDECREF(self->types[i]);
    for (int i = 0; i < V_CONSTRUCT_COUNT; i++) {
        Py_XDECREF(self->kinds[i]);
        Py_XDECREF(self->constructs[i]);
    }
    Py_XDECREF(self->capture_names);
    for (int i = 0; i < 3; i++) Py_XDECREF(self->no_scopes[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int index_of(const char *const *names, int count, PyObject *name, const char *what) {
    const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (text == NULL) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s names must be str", what);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (strcmp(names[i], text) == 0) return i;
    }
    PyErr_Format(PyExc_ValueError, "not a %s of native/vocabulary.py: %.200s", what, text);
    return -1;
}

/* the captures: all in the vocabulary, one construct per pattern */
static int init_captures(FactEngine *self) {
    const Runner *r = self->runner;
    self->capture_names = PyTuple_New(r->capture_count);
    self->capture_vocab = PyMem_RawCalloc(r->capture_count + 1, sizeof(uint16_t));
    self->construct_of = PyMem_RawCalloc(r->pattern_count + 1, sizeof(uint16_t));
    if (self->capture_names == NULL || self->capture_vocab == NULL || self->construct_of == NULL) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    for (uint32_t i = 0; i < r->capture_count; i++) {
        uint32_t len;
        const char *text = runner_capture_name(r, i, &len);
        PyObject *name = PyUnicode_DecodeUTF8(text, len, NULL);
        if (name == NULL) return -1;
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(self->capture_names, i, name);
        int v = index_of(VOCABULARY, V_COUNT, name, "capture name");
        if (v < 0) return -1;
        self->capture_vocab[i] = (uint16_t)v;
    }
    if (!r->tuple_shaped) {
        PyErr_SetString(PyExc_ValueError, "a capture that may hold several nodes of a match");
        return -1;
    }
    for (uint32_t p = 0; p < r->pattern_count; p++) {
        int found = 0;
        for (uint16_t i = r->pattern_capture_start[p]; i < r->pattern_capture_start[p + 1]; i++) {
            uint16_t v = self->capture_vocab[r->pattern_captures[i]];
            if (v < V_CONSTRUCT_COUNT) {
                self->construct_of[p] = v;
                found++;
            }
        }
        if (found != 1) {
            PyErr_Format(PyExc_ValueError, "pattern %u has %d construct captures, not one", p,
                         found);
            return -1;
        }
    }
    for (int v = 0; v < V_CONSTRUCT_COUNT; v++) {
        const char *dot = strchr(VOCABULARY[v], '.');
        self->kinds[v] = PyUnicode_InternFromString(dot ? dot + 1 : VOCABULARY[v]);
        self->constructs[v] = PyUnicode_InternFromString(VOCABULARY[v]);
        if (self->kinds[v] == NULL || self->constructs[v] == NULL) return -1;
    }
    return 0;
}

/* roles: {node type: role}; fields: {field role: grammar field} */
static int init_roles(FactEngine *self, PyObject *roles, PyObject *fields) {
    const TSLanguage *language = self->runner->language;
    uint32_t count = ts_language_symbol_count(language);
    self->symbol_count = count;
    self->role = PyMem_RawCalloc(count ? count : 1, 1);
    if (self->role == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(roles, &pos, &key, &value)) {
        int role = index_of(ROLE_NAMES, R_COUNT, value, "node role");
        const char *type = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (role <= 0 || type == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a role of no name");
            return -1;
        }
        bool any = false;
        for (uint32_t s = 0; s < count; s++) {
            const char *name = ts_language_symbol_name(language, (TSSymbol)s);
            if (name != NULL && strcmp(name, type) == 0) {
                self->role[s] = (uint8_t)role;
                any = true;
            }
        }
        if (!any) {
            PyErr_Format(PyExc_ValueError, "the grammar has no node type %.200s", type);
            return -1;
        }
    }
    pos = 0;
    while (PyDict_Next(fields, &pos, &key, &value)) {
        int f = index_of(FIELD_ROLE_NAMES, F_COUNT, key, "field role");
        if (f < 0) return -1;
        const char *name = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
        if (name == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "field names must be str");
            return -1;
        }
        self->fields[f] = ts_language_field_id_for_name(language, name, (uint32_t)strlen(name));
        if (self->fields[f] == 0) {
            PyErr_Format(PyExc_ValueError, "the grammar has no field %.200s", name);
            return -1;
        }
    }
    return 0;
}

static int init_options(FactEngine *self, PyObject *options) {
    for (int i = 0; i < OPTION_COUNT; i++) {
        PyObject *value = PyDict_GetItemString(options, OPTION_NAMES[i]);
        if (value == NULL) value = S_EMPTY;
        if (!PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "option %s must be a str", OPTION_NAMES[i]);
            return -1;
        }
        Py_INCREF(value);
        /* the kinds are code constants' interned strings */
        if (i < O_FIRST_FORM) PyUnicode_InternInPlace(&value);
        self->options[i] = value;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(options, &pos, &key, &value)) {
        if (index_of(OPTION_NAMES, OPTION_COUNT, key, "fact engine option") < 0) return -1;
    }
    const char *rule = PyUnicode_AsUTF8(self->options[O_EXPORT_RULE]);
    if (rule == NULL || (rule[0] && strcmp(rule, "underscore") != 0)) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "no export rule %s", rule);
        return -1;
    }
    return 0;
}

/* whether `hook` is this module's builtin function `fn` */
static bool is_builtin(PyObject *hook, PyCFunction fn) {
    return PyCFunction_Check(hook) && PyCFunction_GET_FUNCTION(hook) == fn &&
           PyCFunction_GET_SELF(hook) != NULL && PyModule_Check(PyCFunction_GET_SELF(hook));
}

static PyObject *engine_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"language", "source", "roles", "fields", "options",
                               "hooks",    "types",  "steps", NULL};
    PyObject *language_obj, *roles, *fields, *options, *hooks, *types, *steps = Py_None;
    const char *text;
    Py_ssize_t length;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os#O!O!O!O!O!|O:FactEngine", keywords,
                                     &language_obj, &text, &length, &PyDict_Type, &roles,
                                     &PyDict_Type, &fields, &PyDict_Type, &options,
                                     &PyTuple_Type, &hooks, &PyTuple_Type, &types, &steps))
        return NULL;
    if (steps != Py_None && !PyBytes_Check(steps)) {
        PyErr_SetString(PyExc_TypeError, "steps must be bytes or None");
        return NULL;
    }
    const TSLanguage *language;
    if (language_from_object(language_obj, &language) < 0) return NULL;
    if (PyTuple_GET_SIZE(hooks) != HOOK_COUNT || PyTuple_GET_SIZE(types) != TYPE_COUNT) {
        PyErr_Format(PyExc_TypeError, "hooks must be %d callables and types %d fact types",
                     HOOK_COUNT, TYPE_COUNT);
        return NULL;
    }
    for (int i = 0; i < HOOK_COUNT; i++) {
        if (!PyCallable_Check(PyTuple_GET_ITEM(hooks, i))) {
            PyErr_SetString(PyExc_TypeError, "hooks must be callables");
            return NULL;
        }
    }
    for (int i = 0; i < TYPE_COUNT; i++) {
        PyObject *t = PyTuple_GET_ITEM(types, i);
        if (!PyType_Check(t) || !PyType_IsSubtype((PyTypeObject *)t, &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "the fact types must be tuple subclasses");
            return NULL;
        }
    }
    if (length > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a query of more than 4 GiB");
        return NULL;
    }
    FactEngine *self = (FactEngine *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    for (int i = 0; i < HOOK_COUNT; i++) self->hooks[i] = Py_NewRef(PyTuple_GET_ITEM(hooks, i));
    self->native_chain = is_builtin(self->hooks[H_CHAIN], (PyCFunction)cached_chain);
    self->native_callee_chain =
        is_builtin(self->hooks[H_CALLEE_CHAIN], (PyCFunction)cached_callee_chain);
    for (int i = 0; i < TYPE_COUNT; i++)
        self->types[i] = (PyTypeObject *)Py_NewRef(PyTuple_GET_ITEM(types, i));
    /* the steps another engine exported (`steps()`) spare the query's compilation; bytes
       that are no export of this query, grammar and build are ignored */
    if (steps != Py_None)
        self->runner = runner_from_export(language, text, (uint32_t)length,
                                          PyBytes_AS_STRING(steps), PyBytes_GET_SIZE(steps));
    if (self->runner == NULL && !PyErr_Occurred())
        self->runner = runner_new(language, text, (uint32_t)length);
    if (self->runner == NULL || init_captures(self) < 0 || init_roles(self, roles, fields) < 0 ||
        init_options(self, options) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyObject *engine_get_walkable(FactEngine *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->runner->walkable);
}

static PyObject *engine_get_from_steps(FactEngine *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->runner->capture_names != NULL);
}

static PyObject *engine_steps(FactEngine *self, PyObject *Py_UNUSED(ignored)) {
    return runner_export(self->runner);
}

static PyMethodDef engine_methods[] = {
    {"facts", (PyCFunction)(void (*)(void))engine_facts, METH_FASTCALL,
     PyDoc_STR("facts(node, source, facts, module_vars, /)\n--\n\n"
               "Appends the facts of the tree under `node` (source: its bytes) to the lists\n"
               "of `facts` (a FileFacts), `module_vars` being the set of module variables\n"
               "named so far; returns the first syntax error's line, 0 when none.")},
    {"steps", (PyCFunction)engine_steps, METH_NOARGS,
     PyDoc_STR("steps()\n--\n\nThe runner's compiled steps as bytes: FactEngine(..., steps=)\n"
               "makes the same engine from them without compiling the query.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef engine_getset[] = {
    {"walkable", (getter)engine_get_walkable, NULL,
     PyDoc_STR("Whether the runner's walk runs the query (else query.c's cursor does)."), NULL},
    {"from_steps", (getter)engine_get_from_steps, NULL,
     PyDoc_STR("Whether the engine was made from exported steps (its query not compiled)."),
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject FactEngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "codeimpact.native._syntax.FactEngine",
    .tp_basicsize = sizeof(FactEngine),
    .tp_dealloc = (destructor)engine_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("FactEngine(language, source, roles, fields, options, hooks, types, "
                        "steps=None)\n"
                        "--\n\nThe facts of a file from a query in the shared capture\n"
                        "vocabulary (see native/facts.c and native/facts.py)."),
    .tp_methods = engine_methods,
    .tp_getset = engine_getset,
    .tp_new = engine_new,
};
