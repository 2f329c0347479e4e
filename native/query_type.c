/*
 * The Python `Query` type: a query of any language compiled by the vendored runtime
 * (runner.c), whose matches come out as py-tree-sitter Node tuples, one node per capture
 * in the pattern's capture order (native/runner.py wraps it with the same answers from
 * py-tree-sitter's QueryCursor when the native path cannot run). Also the argument checks
 * every entry point that reads a py-tree-sitter object makes.
 */

#include "runner.h"

#include "tree_sitter/vendored.h"

/* The `tree-sitter` version py-tree-sitter says itself (native/runner.py `_installed` reads
 * the same): importlib.metadata, whose import was ~34 ms of CPU in every process that
 * extracts (email, csv, zipfile...), is asked only when it does not. A new reference; NULL
 * with no exception when there is none, NULL with one on an error. */
static PyObject *own_version(void) {
    PyObject *ts = PyImport_ImportModule("tree_sitter");
    PyObject *version = ts != NULL ? PyObject_GetAttrString(ts, "__version__") : NULL;
    Py_XDECREF(ts);
    if (version != NULL && PyUnicode_Check(version)) return version;
    Py_XDECREF(version);
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_ImportError) &&
        !PyErr_ExceptionMatches(PyExc_AttributeError))
        return NULL;
    PyErr_Clear();
    return NULL;
}

/* 1 when the installed `tree-sitter` distribution is the vendored version, else 0; -1 on
 * an error. Asked once: the Node check below cannot tell py-tree-sitter 0.25 from 0.26 (same
 * object size and name), and a tree built by another runtime must never be walked. */
static int installed_version_matches(void) {
    static int matches = -1;
    if (matches >= 0) return matches;
    PyObject *version = own_version();
    if (version == NULL && PyErr_Occurred()) return -1;
    if (version == NULL) {
        PyObject *md = PyImport_ImportModule("importlib.metadata");
        if (md == NULL) return -1;
        version = PyObject_CallMethod(md, "version", "s", "tree-sitter");
        Py_DECREF(md);
    }
    if (version == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ImportError)) return -1; /* PackageNotFoundError */
        PyErr_Clear();
        matches = 0;
        return 0;
    }
    const char *text = PyUnicode_Check(version) ? PyUnicode_AsUTF8(version) : NULL;
    if (text == NULL) PyErr_Clear();
    matches = text != NULL && strcmp(text, CODEIMPACT_VENDORED_PY_TREE_SITTER) == 0;
    Py_DECREF(version);
    return matches;
}

static int check_version(const char *what) {
    int version = installed_version_matches();
    if (version == 0) {
        PyErr_Format(PyExc_TypeError,
                     "expected a %s of py-tree-sitter %s, another version is installed", what,
                     CODEIMPACT_VENDORED_PY_TREE_SITTER);
    }
    return version <= 0 ? -1 : 0;
}

int node_from_object(PyObject *obj, TSNode *node) {
    PyTypeObject *type = Py_TYPE(obj);
    /* (not garbage-collected: new_node makes Nodes with PyObject_New, as py-tree-sitter does) */
    if (type->tp_basicsize != (Py_ssize_t)sizeof(NodeObject) ||
        strcmp(type->tp_name, "tree_sitter.Node") != 0 || PyType_IS_GC(type)) {
        PyErr_Format(PyExc_TypeError,
                     "expected a tree_sitter.Node of py-tree-sitter %s, got %.200s",
                     CODEIMPACT_VENDORED_PY_TREE_SITTER, type->tp_name);
        return -1;
    }
    if (check_version("tree_sitter.Node") < 0) return -1;
    *node = ((NodeObject *)obj)->node;
    if (ts_node_is_null(*node) || node->tree == NULL || ((NodeObject *)obj)->tree == NULL) {
        PyErr_SetString(PyExc_TypeError, "a null tree_sitter.Node");
        return -1;
    }
    return 0;
}

int language_from_object(PyObject *obj, const TSLanguage **language) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type->tp_basicsize != (Py_ssize_t)sizeof(LanguageObject) ||
        strcmp(type->tp_name, "tree_sitter.Language") != 0) {
        PyErr_Format(PyExc_TypeError,
                     "expected a tree_sitter.Language of py-tree-sitter %s, got %.200s",
                     CODEIMPACT_VENDORED_PY_TREE_SITTER, type->tp_name);
        return -1;
    }
    if (check_version("tree_sitter.Language") < 0) return -1;
    const LanguageObject *lang = (const LanguageObject *)obj;
    if (lang->language == NULL ||
        ts_language_abi_version(lang->language) != lang->abi_version) {
        PyErr_SetString(PyExc_TypeError, "a tree_sitter.Language of another layout");
        return -1;
    }
    *language = lang->language;
    return 0;
}

PyObject *new_node(PyObject *like, TSNode node) {
    NodeObject *self = PyObject_New(NodeObject, Py_TYPE(like));
    if (self == NULL) return NULL;
    self->node = node;
    self->children = NULL;
    self->tree = Py_NewRef(((NodeObject *)like)->tree);
    return (PyObject *)self;
}

int check_argc(const char *name, Py_ssize_t argc, Py_ssize_t expected) {
    if (argc == expected) return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected, argc);
    return -1;
}

/* ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Runner *runner;
    PyObject *capture_names; /* tuple of str, by capture id */
} QueryObject;

static void query_dealloc(QueryObject *self) {
    runner_free(self->runner);
    Py_XDECREF(self->capture_names);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *query_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"language", "source", NULL};
    PyObject *language_obj;
    const char *text;
    Py_ssize_t length;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os#:Query", keywords, &language_obj, &text,
                                     &length))
        return NULL;
    const TSLanguage *language;
    if (language_from_object(language_obj, &language) < 0) return NULL;
    if (length > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a query of more than 4 GiB");
        return NULL;
    }
    QueryObject *self = (QueryObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->runner = runner_new(language, text, (uint32_t)length);
    if (self->runner == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    uint32_t n = self->runner->capture_count;
    self->capture_names = PyTuple_New(n);
    if (self->capture_names == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len;
        const char *name = ts_query_capture_name_for_id(self->runner->query, i, &len);
        PyObject *s = PyUnicode_DecodeUTF8(name, len, NULL);
        if (s == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        PyTuple_SET_ITEM(self->capture_names, i, s);
    }
    return (PyObject *)self;
}

static PyObject *query_pattern_captures(QueryObject *self, PyObject *arg) {
    Py_ssize_t p = PyLong_AsSsize_t(arg);
    if (p == -1 && PyErr_Occurred()) return NULL;
    const Runner *r = self->runner;
    if (p < 0 || (size_t)p >= r->pattern_count) {
        PyErr_SetString(PyExc_IndexError, "no such pattern");
        return NULL;
    }
    uint16_t from = r->pattern_capture_start[p], to = r->pattern_capture_start[p + 1];
    PyObject *out = PyTuple_New(to - from);
    if (out == NULL) return NULL;
    for (uint16_t i = from; i < to; i++) {
        PyTuple_SET_ITEM(out, i - from,
                         Py_NewRef(PyTuple_GET_ITEM(self->capture_names, r->pattern_captures[i])));
    }
    return out;
}

/* (pattern, nodes) with a node (or None) per capture of the pattern, in its order */
static PyObject *match_tuple(const Runner *r, PyObject *like, const RunnerMatches *m,
                             size_t k) {
    const RunnerMatch *match = &m->matches[k];
    uint16_t from = r->pattern_capture_start[match->pattern];
    uint16_t to = r->pattern_capture_start[match->pattern + 1];
    PyObject *nodes = PyTuple_New(to - from);
    if (nodes == NULL) return NULL;
    for (uint16_t c = 0; c < match->capture_count; c++) {
        const RunnerCapture *cap = &m->caps[match->capture_start + c];
        for (uint16_t i = from; i < to; i++) {
            if (r->pattern_captures[i] != cap->id) continue;
            PyObject *node = new_node(like, cap->node);
            if (node == NULL) {
                Py_DECREF(nodes);
                return NULL;
            }
            Py_XSETREF(((PyTupleObject *)nodes)->ob_item[i - from], node);
            break;
        }
    }
    for (uint16_t i = 0; i < to - from; i++) {
        if (PyTuple_GET_ITEM(nodes, i) == NULL) PyTuple_SET_ITEM(nodes, i, Py_NewRef(Py_None));
    }
    return Py_BuildValue("(HN)", match->pattern, nodes);
}

static PyObject *query_matches(QueryObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"node", "cursor", NULL};
    PyObject *node_obj;
    int cursor = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$p:matches", keywords, &node_obj, &cursor))
        return NULL;
    const Runner *r = self->runner;
    if (!r->tuple_shaped) {
        PyErr_SetString(PyExc_ValueError,
                        "the query has a pattern whose capture may hold several nodes");
        return NULL;
    }
    TSNode root;
    if (node_from_object(node_obj, &root) < 0) return NULL;
    if (ts_node_language(root) != r->language) {
        PyErr_SetString(PyExc_ValueError, "the node is of another language than the query");
        return NULL;
    }
    RunnerMatches m = {0};
    PyObject *out = NULL;
    if (runner_run(r, root, false, cursor, &m) < 0) goto done;
    out = PyList_New((Py_ssize_t)m.match_count);
    if (out == NULL) goto done;
    for (size_t k = 0; k < m.match_count; k++) {
        PyObject *item = match_tuple(r, node_obj, &m, k);
        if (item == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)k, item);
    }
done:
    runner_matches_free(&m);
    return out;
}

static PyObject *query_error_line(QueryObject *Py_UNUSED(self), PyObject *node_obj) {
    TSNode root;
    if (node_from_object(node_obj, &root) < 0) return NULL;
    uint32_t row;
    if (runner_error_row(root, &row) < 0) return NULL;
    if (row == UINT32_MAX) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong((unsigned long)row + 1);
}

static PyObject *query_get_walkable(QueryObject *self, void *Py_UNUSED(closure)) {
    return PyBool_FromLong(self->runner->walkable);
}

static PyObject *query_get_pattern_count(QueryObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLong(self->runner->pattern_count);
}

static PyObject *query_get_capture_names(QueryObject *self, void *Py_UNUSED(closure)) {
    return Py_NewRef(self->capture_names);
}

static PyMethodDef query_methods[] = {
    {"matches", (PyCFunction)(void (*)(void))query_matches, METH_VARARGS | METH_KEYWORDS,
     PyDoc_STR("matches(node, *, cursor=False)\n--\n\n"
               "Every match under `node`, in the order of ts_query_cursor_next_match, as\n"
               "(pattern_index, nodes): a Node (None when absent) per capture of the\n"
               "pattern, in pattern_captures(pattern_index) order. `cursor` runs query.c's\n"
               "cursor where the walk would run (the same matches).")},
    {"pattern_captures", (PyCFunction)query_pattern_captures, METH_O,
     PyDoc_STR("pattern_captures(pattern_index)\n--\n\n"
               "The capture names of a pattern, in the order of a match's nodes.")},
    {"error_line", (PyCFunction)query_error_line, METH_O,
     PyDoc_STR("error_line(node)\n--\n\n"
               "The first line (1-based) of an ERROR or MISSING node under `node`, as\n"
               "QueryCursor.captures of `(ERROR) @e (MISSING) @m` finds it; None: none.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef query_getset[] = {
    {"walkable", (getter)query_get_walkable, NULL,
     PyDoc_STR("Whether the walk runs this query (else query.c's cursor does)."), NULL},
    {"pattern_count", (getter)query_get_pattern_count, NULL, NULL, NULL},
    {"capture_names", (getter)query_get_capture_names, NULL,
     PyDoc_STR("The capture names, by capture id."), NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject QueryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "codeimpact.native._syntax.Query",
    .tp_basicsize = sizeof(QueryObject),
    .tp_dealloc = (destructor)query_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("Query(language, source)\n--\n\n"
                        "A tree-sitter query compiled by the vendored runtime for a\n"
                        "tree_sitter.Language (see native/runner.c)."),
    .tp_methods = query_methods,
    .tp_getset = query_getset,
    .tp_new = query_new,
};
