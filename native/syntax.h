/*
 * The internal interface between the C files of the _syntax extension (compiled with
 * hidden visibility: nothing here is exported from the shared object):
 *
 * - syntax.c: the walk that reproduces python.scm's query matches, python_matches, the
 *   call facts, and the module;
 * - python_facts.c: python_facts, all of a Python file's facts made from the walk's matches;
 * - chains.c: python.py's chain readers (chain_text, callee_chain_text).
 */
#ifndef CODEIMPACT_SYNTAX_H
#define CODEIMPACT_SYNTAX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tree_sitter/api.h"

/* py-tree-sitter 0.26 (tree_sitter/binding/types.h) */
typedef struct {
    PyObject_HEAD
    TSNode node;
    PyObject *children;
    PyObject *tree;
} NodeObject;

/* python.scm's patterns: how many, the index of the call pattern, captures per match */
enum { P_CALL = 3, PATTERN_COUNT = 16, MAX_CAPTURES = 3 };

/* node types by public symbol: what `node.type ==` would say (syntax_category) */
enum { C_OTHER = 0, C_ARGUMENT_LIST, C_IDENTIFIER, C_ATTRIBUTE, C_KEYWORD_ARGUMENT,
       C_LIST_SPLAT, C_DICTIONARY_SPLAT,
       /* python_facts' node types */
       C_CALL, C_DECORATED, C_DECORATOR, C_TYPED_PARAMETER, C_TYPED_DEFAULT_PARAMETER,
       C_DEFAULT_PARAMETER, C_LIST_SPLAT_PATTERN, C_DICTIONARY_SPLAT_PATTERN, C_SUBSCRIPT,
       C_ALIASED_IMPORT, C_RELATIVE_IMPORT, C_IMPORT_PREFIX, C_DOTTED_NAME, C_WILDCARD_IMPORT,
       C_PATTERN_LIST, C_TUPLE_PATTERN, C_LIST, C_TUPLE, C_ASSIGNMENT, C_EXPRESSION_STATEMENT };

/* python_facts' fields, by name (looked up per language; 0 when the grammar lacks one) */
enum { F_BODY, F_PARAMETERS, F_RETURN_TYPE, F_SUPERCLASSES, F_TYPE, F_ALIAS, F_MODULE_NAME,
       F_DEFINITION, F_RIGHT, F_FUNCTION, F_NAME, F_VALUE, FIELD_COUNT };

/* Per-language symbol and field ids (syntax.c); valid for the life of the process. */
typedef struct LangIds LangIds;

const LangIds *lang_ids(const TSLanguage *language); /* NULL with an exception */
bool syntax_facts_usable(const LangIds *ids);        /* python_facts may walk this grammar */
uint8_t syntax_category(const LangIds *ids, TSNode node);
TSFieldId syntax_field(const LangIds *ids, int which); /* F_* */

/* A finished match of python_facts' walk: its captures in a match tuple's order. */
typedef struct Found {
    TSNode nodes[MAX_CAPTURES];
    uint16_t pattern;
    uint8_t count;
} Found;

typedef struct {
    const LangIds *ids;
    const char *src;
    Py_ssize_t src_len;
    PyObject *chain;     /* python.py's _chain */
    TSTreeCursor cursor; /* over the children of one argument list at a time */
    PyTypeObject *node_type; /* tree_sitter.Node, and the Tree of the walked node */
    PyObject *tree;
    PyObject *calls, *matches; /* the results */
    /* python_facts' matches (when `matches` is NULL): the captures of every finished match
       but the calls, in a tuple's order */
    struct Found *found;
    size_t found_count, found_cap;
} Ctx;

/* source[node.start_byte : node.end_byte] as Python slices it */
void span(const Ctx *ctx, TSNode node, const char **ptr, Py_ssize_t *len);
PyObject *call_on_text(const Ctx *ctx, PyObject *fn, TSNode node); /* fn(that text) */
int append_pair(PyObject *out, PyObject *key, PyObject *value); /* steals key and value */
PyObject *new_node(const Ctx *ctx, TSNode node);                /* a tree_sitter.Node */

/* The argument count of a fastcall entry point (-1 with a TypeError when it is not
 * `expected`); the checks of both walk entry points (a Node of the vendored runtime,
 * bytes), the walk of `root` into ctx (the other matches as TSNodes in ctx->found when
 * `collect`) and its release. run_walk returns 0, -1 with an exception, or 1 where the walk
 * cannot reproduce the query; *error_row is UINT32_MAX when no error node was found. */
int check_argc(const char *name, Py_ssize_t argc, Py_ssize_t expected);
int check_tree_args(PyObject *const *argv, TSNode *root);
int run_walk(Ctx *ctx, const LangIds *ids, PyObject *root_obj, TSNode root, PyObject *source,
             PyObject *chain, bool collect, uint32_t *error_row);
void free_walk(Ctx *ctx);

typedef struct {
    Py_ssize_t start, end, parent;
    PyObject *local; /* borrowed from the tuple the intervals are read from */
} Interval;

/* bisect.bisect_right over the starts, minus one; python.py's _Scopes.at */
Py_ssize_t last_starting_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos);
PyObject *scope_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos);
/* the CallFacts of python_matches' call tuples, as a new list */
PyObject *call_facts_list(PyObject *calls, const char *src, Py_ssize_t src_len,
                          const Interval *scopes, Py_ssize_t n_scopes, const Interval *decs,
                          Py_ssize_t n_decs, PyObject *chain_fn, PyObject *names,
                          PyObject *rename, PyTypeObject *fact_type);

/* Strings python.py's facts share: "decorator" interned (as identifier-like code constants
 * are), "" the runtime's empty singleton, as python.py's constants are. Set by
 * PyInit__syntax. */
extern PyObject *KIND_DECORATOR, *NO_SCOPE;

static inline bool is_name_start(Py_UCS4 c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* `\w` and `\s` of a bytes pattern */
static inline bool is_word_byte(unsigned char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static inline bool is_space_byte(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* python_facts.c */
int python_facts_init(void); /* its constants; -1 with an exception */
PyObject *python_facts(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
extern const char python_facts_doc[];

/* chains.c */
PyObject *chain_text(PyObject *module, PyObject *text);
PyObject *callee_chain_text(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
extern const char chain_text_doc[], callee_chain_text_doc[];

#endif
