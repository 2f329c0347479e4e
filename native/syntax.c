/*
 * codeimpact native syntax walks: the call sites of a Python syntax tree.
 *
 * python_calls(node, source, chain) returns, for every match of the query pattern
 *
 *     (call function: (_) @callee arguments: (_) @args)
 *
 * under `node` (a tree_sitter.Node), one tuple (callee start byte, callee end byte,
 * callee start row + 1, args), in the order in which TSQueryCursor yields those matches,
 * where `args` is what indexer/languages/python.py's `_args(args_node, source)` returns.
 * `chain` is python.py's `_chain` (bytes -> str | None); it is called, not re-implemented,
 * so that the strings in the facts are the very objects the query path gets from its
 * cache (FileFacts.to_bytes is a marshal dump, whose bytes depend on which strings are
 * shared objects).
 *
 * Matching, as query.c applies this pattern: a state starts at each visible node whose
 * symbol (ts_node_symbol) is `call`; a visible child of the call (hidden wrapper nodes are
 * looked through) matches a step iff it is named, not ERROR and has the step's field, as
 * ts_tree_cursor_current_status (what the query cursor uses) reports it; a child that does
 * not match ends the state when no later sibling could match the step. A match finishes
 * when the query cursor enters its `arguments` child, so matches come out in pre-order of
 * the argument nodes (`g(x).f(y)`: the inner call first; `f(g(x))`: f first). Where
 * query.c would fork a state (a matching child that a later sibling with the same field
 * could also match: no production of the Python grammar has that), python_calls gives up
 * and returns None, and the caller uses the query instead.
 *
 * The walk visits every subtree of the file in pre-order with an explicit stack (no
 * recursion, so no depth limit), reading the runtime's Subtree structs directly: with
 * a TSTreeCursor over every node, python_calls took 0.45 s instead of 0.33 s over Django's
 * trees. The children of each call and of each argument list are read with a TSTreeCursor.
 *
 * The runtime is our own copy (native/tree_sitter, see vendored.h): the Node's TSNode is
 * read by py-tree-sitter 0.26's object layout, after checking the type's name and size and
 * that the installed tree-sitter is the vendored version.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tree_sitter/api.h"
/* runtime internals (hence the exact version check): the query cursor's field status, and
   the Subtree layout for the walk */
#include "language.h"
#include "length.h"
#include "parser.h"
#include "subtree.h"
#include "tree.h"
#include "tree_cursor.h"
#include "tree_sitter/vendored.h"

/* py-tree-sitter 0.26 (tree_sitter/binding/types.h) */
typedef struct {
    PyObject_HEAD
    TSNode node;
    PyObject *children;
    PyObject *tree;
} NodeObject;

/* ------------------------------------------------------------------------- */
/* per-language ids                                                          */

enum { C_OTHER = 0, C_ARGUMENT_LIST, C_IDENTIFIER, C_ATTRIBUTE, C_KEYWORD_ARGUMENT,
       C_LIST_SPLAT, C_DICTIONARY_SPLAT };

typedef struct LangIds {
    const TSLanguage *language;
    bool usable; /* the grammar has `call` and the four fields */
    TSSymbol call;
    TSFieldId f_function, f_arguments, f_name, f_value;
    uint32_t symbol_count;
    uint8_t *category; /* by public symbol: what `node.type ==` would say */
    uint8_t *is_call;  /* by symbol or alias: its public symbol is `call` */
    struct LangIds *next;
} LangIds;

/* Grow-only (a process sees a handful of languages, whose TSLanguage is static data), so an
 * entry stays valid while a walk runs Python code that may look up another language. */
static LangIds *langs;

static TSFieldId field_id(const TSLanguage *language, const char *name) {
    return ts_language_field_id_for_name(language, name, (uint32_t)strlen(name));
}

static const LangIds *lang_ids(const TSLanguage *language) {
    for (LangIds *ids = langs; ids != NULL; ids = ids->next) {
        if (ids->language == language) return ids;
    }
    static const struct { const char *name; uint8_t category; } names[] = {
        {"argument_list", C_ARGUMENT_LIST}, {"identifier", C_IDENTIFIER},
        {"attribute", C_ATTRIBUTE},         {"keyword_argument", C_KEYWORD_ARGUMENT},
        {"list_splat", C_LIST_SPLAT},       {"dictionary_splat", C_DICTIONARY_SPLAT},
    };
    uint32_t count = ts_language_symbol_count(language);
    LangIds *ids = PyMem_RawCalloc(1, sizeof(LangIds));
    uint8_t *category = PyMem_RawCalloc(count ? count : 1, 1);
    uint8_t *is_call = PyMem_RawCalloc(count ? count : 1, 1);
    if (ids == NULL || category == NULL || is_call == NULL) {
        PyMem_RawFree(ids);
        PyMem_RawFree(category);
        PyMem_RawFree(is_call);
        PyErr_NoMemory();
        return NULL;
    }
    for (uint32_t s = 0; s < count; s++) {
        const char *type = ts_language_symbol_name(language, (TSSymbol)s);
        if (type == NULL) continue;
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
            if (strcmp(type, names[k].name) == 0) category[s] = names[k].category;
        }
    }
    ids->language = language;
    /* as the query compiler looks names up */
    ids->call = ts_language_symbol_for_name(language, "call", 4, true);
    ids->f_function = field_id(language, "function");
    ids->f_arguments = field_id(language, "arguments");
    ids->f_name = field_id(language, "name");
    ids->f_value = field_id(language, "value");
    ids->usable =
        ids->call && ids->f_function && ids->f_arguments && ids->f_name && ids->f_value;
    for (uint32_t s = 0; s < count && ids->call; s++) {
        is_call[s] = ts_language_public_symbol(language, (TSSymbol)s) == ids->call;
    }
    ids->symbol_count = count;
    ids->category = category;
    ids->is_call = is_call;
    ids->next = langs;
    langs = ids;
    return ids;
}

static inline uint8_t category_of(const LangIds *ids, TSNode node) {
    TSSymbol s = ts_node_symbol(node);
    return s < ids->symbol_count ? ids->category[s] : C_OTHER;
}

/* ------------------------------------------------------------------------- */
/* arguments                                                                 */

typedef struct {
    const LangIds *ids;
    const char *src;
    Py_ssize_t src_len;
    PyObject *chain;     /* python.py's _chain */
    TSTreeCursor cursor; /* over the children of one node at a time */
} Ctx;

/* source[start:end] as Python slices it */
static void span(const Ctx *ctx, TSNode node, const char **ptr, Py_ssize_t *len) {
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(node);
    Py_ssize_t end = (Py_ssize_t)ts_node_end_byte(node);
    if (start > ctx->src_len) start = ctx->src_len;
    if (end > ctx->src_len) end = ctx->src_len;
    if (end < start) end = start;
    *ptr = ctx->src + start;
    *len = end - start;
}

/* _chain(source[node.start_byte : node.end_byte]) */
static PyObject *chain_of(const Ctx *ctx, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(ctx, node, &ptr, &len);
    PyObject *text = PyBytes_FromStringAndSize(ptr, len);
    if (text == NULL) return NULL;
    PyObject *chain = PyObject_CallOneArg(ctx->chain, text);
    Py_DECREF(text);
    return chain;
}

/* Appends (key, value) to out, stealing both references. */
static int append_pair(PyObject *out, PyObject *key, PyObject *value) {
    if (key == NULL) {
        Py_DECREF(value);
        return -1;
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(key);
        Py_DECREF(value);
        return -1;
    }
    PyTuple_SET_ITEM(pair, 0, key);
    PyTuple_SET_ITEM(pair, 1, value);
    int rc = PyList_Append(out, pair);
    Py_DECREF(pair);
    return rc;
}

/* python.py's _args(args, source) */
static PyObject *call_args(Ctx *ctx, TSNode args) {
    const LangIds *ids = ctx->ids;
    if (ts_node_named_child_count(args) == 0 || category_of(ids, args) != C_ARGUMENT_LIST) {
        return PyTuple_New(0);
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    long long pos = 0;
    TSTreeCursor *cursor = &ctx->cursor;
    ts_tree_cursor_reset(cursor, args);
    if (ts_tree_cursor_goto_first_child(cursor)) {
        do {
            TSNode a = ts_tree_cursor_current_node(cursor);
            if (!ts_node_is_named(a)) continue;
            switch (category_of(ids, a)) {
            case C_IDENTIFIER:
            case C_ATTRIBUTE: {
                PyObject *chain = chain_of(ctx, a);
                if (chain == NULL) goto error;
                int truthy = PyObject_IsTrue(chain);
                if (truthy < 0) {
                    Py_DECREF(chain);
                    goto error;
                }
                if (truthy && pos >= 0) {
                    if (append_pair(out, PyLong_FromLongLong(pos), chain) < 0) goto error;
                } else {
                    Py_DECREF(chain);
                }
                pos += 1;
                break;
            }
            case C_KEYWORD_ARGUMENT: {
                TSNode name = ts_node_child_by_field_id(a, ids->f_name);
                TSNode value = ts_node_child_by_field_id(a, ids->f_value);
                if (ts_node_is_null(name) || ts_node_is_null(value)) break;
                uint8_t vc = category_of(ids, value);
                if (vc != C_IDENTIFIER && vc != C_ATTRIBUTE) break;
                PyObject *chain = chain_of(ctx, value);
                if (chain == NULL) goto error;
                int truthy = PyObject_IsTrue(chain);
                if (truthy <= 0) {
                    Py_DECREF(chain);
                    if (truthy < 0) goto error;
                    break;
                }
                const char *ptr;
                Py_ssize_t len;
                span(ctx, name, &ptr, &len); /* name.text.decode() */
                if (append_pair(out, PyUnicode_DecodeUTF8(ptr, len, NULL), chain) < 0) goto error;
                break;
            }
            case C_LIST_SPLAT:
                pos = -(1LL << 30); /* positions after a *args splat are unknown */
                break;
            case C_DICTIONARY_SPLAT:
                break;
            default:
                pos += 1;
            }
        } while (ts_tree_cursor_goto_next_sibling(cursor));
    }
    PyObject *result = PyList_AsTuple(out);
    Py_DECREF(out);
    return result;
error:
    Py_DECREF(out);
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* the walk                                                                  */

static PyObject *emit(Ctx *ctx, TSNode callee, TSNode args);

typedef struct {
    const void *args_id; /* the `arguments` node: the match finishes when the walk gets there */
    TSNode callee, args;
} Pending;

typedef struct {
    const Subtree *children;
    uint32_t count, index, structural_index;
    const TSSymbol *alias_sequence;
    Length position; /* where children[index] starts (after its padding) */
} Level;

typedef struct {
    Pending *pending;
    size_t pending_count, pending_cap;
    Level *levels;
    size_t level_count, level_cap;
} Walk;

static int grow(void **items, size_t *cap, size_t size) {
    size_t n = *cap ? 2 * *cap : 64;
    void *grown = PyMem_Realloc(*items, n * size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = grown;
    *cap = n;
    return 0;
}

/*
 * A `call` node: the pattern's two child steps, applied to its visible children as
 * query.c applies them. Returns 1 and sets callee/args on a match, 0 without one, and -1
 * where query.c would split the state (a matching child that a later sibling with the
 * same field could also match), which this walk does not follow.
 */
static int match_call(const LangIds *ids, TSTreeCursor *cursor, TSNode call, TSNode *callee,
                      TSNode *args) {
    ts_tree_cursor_reset(cursor, call);
    if (!ts_tree_cursor_goto_first_child(cursor)) return 0;
    bool have_callee = false;
    do {
        TSNode child = ts_tree_cursor_current_node(cursor);
        TSFieldId field = 0;
        bool later, later_named, later_same_field;
        TSSymbol supertypes[8];
        unsigned supertype_count = 8;
        ts_tree_cursor_current_status(cursor, &field, &later, &later_named, &later_same_field,
                                      supertypes, &supertype_count);
        TSFieldId want = have_callee ? ids->f_arguments : ids->f_function;
        bool matches = ts_node_symbol(child) != ts_builtin_sym_error &&
                       ts_node_is_named(child) && field == want;
        bool later_can_match = later && (field != want || later_same_field);
        if (!matches) {
            if (!later_can_match) return 0;
        } else if (later_can_match) {
            return -1;
        } else if (!have_callee) {
            *callee = child;
            have_callee = true;
        } else {
            *args = child;
            return 1;
        }
    } while (ts_tree_cursor_goto_next_sibling(cursor));
    return 0;
}

/* Returns 0, -1 with an exception set, or 1 when the walk cannot reproduce the query. */
static int visit_call(Ctx *ctx, Walk *w, TSNode call) {
    TSNode callee, args;
    int rc = match_call(ctx->ids, &ctx->cursor, call, &callee, &args);
    if (rc <= 0) return rc < 0 ? 1 : 0;
    if (w->pending_count == w->pending_cap &&
        grow((void **)&w->pending, &w->pending_cap, sizeof(Pending)) < 0)
        return -1;
    w->pending[w->pending_count++] = (Pending){args.id, callee, args};
    return 0;
}

/*
 * Every subtree under the start node in pre-order, hidden ones included (the pre-order of
 * the visible nodes, which the query cursor follows, is the induced order), tracking
 * positions and aliases as the tree cursor does. A visible node is a `call` by the symbol
 * the query sees (the alias if any, mapped to its public symbol). The match of a call is
 * emitted when the walk reaches its arguments node; those of nested calls finish first
 * (their arguments come earlier in pre-order), so the pending matches form a stack.
 */
static int walk(Ctx *ctx, Walk *w, TSNode root, PyObject *out) {
    const LangIds *ids = ctx->ids;
    const TSLanguage *language = ids->language;
    const TSTree *tree = root.tree;
    int rc;
    if (ts_node_symbol(root) == ids->call && (rc = visit_call(ctx, w, root)) != 0) return rc;
    Subtree top = *(const Subtree *)root.id;
    if (ts_subtree_child_count(top) == 0) return 0;
    if (w->level_cap == 0 && grow((void **)&w->levels, &w->level_cap, sizeof(Level)) < 0)
        return -1;
    w->levels[0] = (Level){
        ts_subtree_children(top), top.ptr->child_count, 0, 0,
        ts_language_alias_sequence(language, top.ptr->production_id),
        {ts_node_start_byte(root), ts_node_start_point(root)},
    };
    w->level_count = 1;
    while (w->level_count > 0) {
        Level *level = &w->levels[w->level_count - 1];
        if (level->index == level->count) {
            w->level_count--;
            continue;
        }
        const Subtree *child = &level->children[level->index];
        Length position = level->position;
        TSSymbol alias = 0;
        if (!ts_subtree_extra(*child)) {
            if (level->alias_sequence) alias = level->alias_sequence[level->structural_index];
            level->structural_index++;
        }
        level->position = length_add(position, ts_subtree_size(*child));
        if (++level->index < level->count) {
            level->position =
                length_add(level->position, ts_subtree_padding(level->children[level->index]));
        }

        if (w->pending_count > 0 && w->pending[w->pending_count - 1].args_id == child) {
            Pending *p = &w->pending[--w->pending_count];
            PyObject *t = emit(ctx, p->callee, p->args);
            if (t == NULL) return -1;
            rc = PyList_Append(out, t);
            Py_DECREF(t);
            if (rc < 0) return -1;
        }
        if (ts_subtree_visible(*child) || alias) {
            TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
            if (symbol < ids->symbol_count && ids->is_call[symbol]) {
                rc = visit_call(ctx, w, ts_node_new(tree, child, position, alias));
                if (rc != 0) return rc;
            }
        }
        if (ts_subtree_child_count(*child) > 0) {
            if (w->level_count == w->level_cap &&
                grow((void **)&w->levels, &w->level_cap, sizeof(Level)) < 0)
                return -1;
            w->levels[w->level_count++] = (Level){
                ts_subtree_children(*child), child->ptr->child_count, 0, 0,
                ts_language_alias_sequence(language, child->ptr->production_id), position,
            };
        }
    }
    /* every match found its arguments node on the way */
    return w->pending_count == 0 ? 0 : 1;
}

static PyObject *emit(Ctx *ctx, TSNode callee, TSNode args) {
    PyObject *a = call_args(ctx, args);
    if (a == NULL) return NULL;
    PyObject *t = PyTuple_New(4);
    if (t == NULL) {
        Py_DECREF(a);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 3, a);
    PyObject *v;
    if ((v = PyLong_FromUnsignedLong(ts_node_start_byte(callee))) == NULL) goto error;
    PyTuple_SET_ITEM(t, 0, v);
    if ((v = PyLong_FromUnsignedLong(ts_node_end_byte(callee))) == NULL) goto error;
    PyTuple_SET_ITEM(t, 1, v);
    if ((v = PyLong_FromUnsignedLong((unsigned long)ts_node_start_point(callee).row + 1)) == NULL)
        goto error;
    PyTuple_SET_ITEM(t, 2, v);
    return t;
error:
    Py_DECREF(t);
    return NULL;
}

/* 1 when the installed `tree-sitter` distribution is the vendored version, else 0; -1 on
 * an error. Asked once: the Node check below cannot tell py-tree-sitter 0.25 from 0.26 (same
 * object size and name), and a tree built by another runtime must never be walked. */
static int installed_version_matches(void) {
    static int matches = -1;
    if (matches >= 0) return matches;
    PyObject *md = PyImport_ImportModule("importlib.metadata");
    if (md == NULL) return -1;
    PyObject *version = PyObject_CallMethod(md, "version", "s", "tree-sitter");
    Py_DECREF(md);
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

static int node_from_object(PyObject *obj, TSNode *node) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type->tp_basicsize != (Py_ssize_t)sizeof(NodeObject) ||
        strcmp(type->tp_name, "tree_sitter.Node") != 0) {
        PyErr_Format(PyExc_TypeError,
                     "expected a tree_sitter.Node of py-tree-sitter %s, got %.200s",
                     CODEIMPACT_VENDORED_PY_TREE_SITTER, type->tp_name);
        return -1;
    }
    int version = installed_version_matches();
    if (version <= 0) {
        if (version == 0) {
            PyErr_Format(PyExc_TypeError,
                         "expected a tree_sitter.Node of py-tree-sitter %s, another version "
                         "is installed",
                         CODEIMPACT_VENDORED_PY_TREE_SITTER);
        }
        return -1;
    }
    *node = ((NodeObject *)obj)->node;
    if (ts_node_is_null(*node) || node->tree == NULL) {
        PyErr_SetString(PyExc_TypeError, "a null tree_sitter.Node");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(python_calls_doc,
"python_calls(node, source, chain, /)\n--\n\n"
"The call sites under a Python syntax tree node, as\n"
"[(callee_start_byte, callee_end_byte, callee_start_row + 1, args), ...] in the order\n"
"of the query pattern (call function: (_) @callee arguments: (_) @args); `args` as\n"
"python.py's _args gives it, `chain` being python.py's _chain. None when the tree has a\n"
"shape this walk does not reproduce the query on (use the query then).");

static PyObject *python_calls(PyObject *Py_UNUSED(module), PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 3) {
        PyErr_Format(PyExc_TypeError, "python_calls() takes 3 arguments (%zd given)", argc);
        return NULL;
    }
    TSNode root;
    if (node_from_object(argv[0], &root) < 0) return NULL;
    if (!PyBytes_Check(argv[1])) {
        PyErr_Format(PyExc_TypeError, "source must be bytes, not %.200s", Py_TYPE(argv[1])->tp_name);
        return NULL;
    }
    if (!PyCallable_Check(argv[2])) {
        PyErr_SetString(PyExc_TypeError, "chain must be callable");
        return NULL;
    }
    const LangIds *ids = lang_ids(ts_node_language(root));
    if (ids == NULL) return NULL;
    if (!ids->usable) Py_RETURN_NONE;

    Ctx ctx;
    ctx.ids = ids;
    ctx.src = PyBytes_AS_STRING(argv[1]);
    ctx.src_len = PyBytes_GET_SIZE(argv[1]);
    ctx.chain = argv[2];
    ctx.cursor = ts_tree_cursor_new(root);

    Walk w = {0};
    PyObject *out = PyList_New(0);
    int rc = out == NULL ? -1 : walk(&ctx, &w, root, out);
    ts_tree_cursor_delete(&ctx.cursor);
    PyMem_Free(w.pending);
    PyMem_Free(w.levels);
    if (rc != 0) {
        Py_XDECREF(out);
        if (rc < 0) return NULL;
        Py_RETURN_NONE; /* a shape the walk does not reproduce the query on */
    }
    return out;
}

static PyMethodDef syntax_methods[] = {
    {"python_calls", (PyCFunction)(void (*)(void))python_calls, METH_FASTCALL, python_calls_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef syntax_module = {
    PyModuleDef_HEAD_INIT, "_syntax",
    "codeimpact native syntax walks over py-tree-sitter trees (see native/syntax.py)", -1,
    syntax_methods,
};

PyMODINIT_FUNC PyInit__syntax(void) {
    PyObject *m = PyModule_Create(&syntax_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", CODEIMPACT_VENDORED_PY_TREE_SITTER) <
        0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
