/*
 * The internal interface of the _syntax extension's C files (compiled with hidden
 * visibility: PyInit__syntax is the only exported symbol):
 *
 * - ts_runtime.c: the vendored tree-sitter runtime, and runner_export_steps;
 * - runner.c: a compiled query of any language (Runner) and its matches over a tree, by
 *   query.c's own cursor or by a faster walk over the same compiled steps (walk.c);
 * - query_type.c: the Python `Query` type over a Runner (matches as Node tuples);
 * - facts.c, facts_defs.c: the facts of a file from a query in the shared capture
 *   vocabulary (native/vocabulary.py), configured per language by data;
 * - call_sites.c: call sites (callee and plain arguments as chains) of any language;
 * - chains.c: the chain readers (chain_text, callee_chain_text) and their kept answers
 *   (cached_chain, cached_callee_chain);
 * - module.c: the module.
 */
#ifndef CODEIMPACT_RUNNER_H
#define CODEIMPACT_RUNNER_H

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

typedef struct {
    PyObject_HEAD
    const TSLanguage *language;
    uint32_t abi_version;
    const char *name;
} LanguageObject;

enum { RUNNER_STEP_CAPTURES = 3, RUNNER_NONE = 0xFFFF, RUNNER_DONE = 0xFFFF };

/* One step of a compiled query (query.c's QueryStep, as the walk needs it). */
typedef struct {
    TSSymbol symbol; /* 0: a wildcard */
    TSFieldId field;
    uint16_t captures[RUNNER_STEP_CAPTURES]; /* capture ids, RUNNER_NONE after the last */
    uint16_t depth;                          /* RUNNER_DONE: the end of a pattern */
    /* the first step of the next branch of an alternation `[...]` (RUNNER_NONE: none); a
       dead end closes a branch: a state reaching it goes on at `alternative` */
    uint16_t alternative;
    bool is_named, is_immediate, contains_captures, fallible, is_dead_end;
    bool unsupported; /* a feature the walk does not implement */
} RunnerStep;

bool runner_export_steps(const TSQuery *query, RunnerStep **steps, uint32_t *step_count,
                         uint16_t **first_step);
/* query.c's own: which of two nodes comes first in a depth-first traversal (-1, 0, 1) */
int ts_query_cursor__compare_nodes(TSNode left, TSNode right);
/* The children of `node` as ts_node_child(node, i) numbers them (a hidden child's own
 * children in its place), into out[0 .. cap): how many there are (more than cap: only the
 * first cap were written). A TSTreeCursor visits the same, at several times the cost per
 * step (its goto_next_sibling was 45% of the fact engine's reading of call arguments). */
uint32_t runner_children(TSNode node, TSNode *out, uint32_t cap);
/* ts_node_child_by_field_id(node, field_id), read from the Subtree structs (the runtime's
 * builds a TSNode per child it passes, ~300 instructions a call) */
TSNode runner_field(TSNode node, TSFieldId field_id);

/* A query compiled for one language, with what the walk needs. Immutable once made. */
typedef struct {
    TSQuery *query;
    const TSLanguage *language;
    uint32_t pattern_count, capture_count, step_count;
    RunnerStep *steps;
    uint16_t *first_step; /* by pattern */
    bool walkable;        /* every step is one the walk implements */
    /* by raw symbol (aliases included): the patterns rooted at its public symbol, as
       roots[root_start[s] .. root_start[s + 1]); ERROR's at s = symbol_count (root_slot) */
    uint32_t symbol_count;
    uint32_t *root_start;
    uint16_t *roots;
    /* per pattern: its captures in step order (each capture once), and the slot of each
       capture id in that order (-1: not in the pattern) */
    uint16_t *pattern_capture_start; /* pattern_count + 1 entries */
    uint16_t *pattern_captures;      /* capture ids */
    uint16_t max_pattern_captures;
    bool tuple_shaped; /* a match holds at most one node per capture (no `*`, `+`) */
    /* by pattern: one step of a node symbol (no field, no alternatives): `(attribute) @m`,
       whose match is the node it roots at (walk.c's enter makes its state last) */
    bool *lone;
    /* its query's text; a runner made from another's exported steps (runner_steps.c) has
       no query until its cursor first runs (runner_query compiles it then from `text`), and
       keeps the capture names it was given */
    char *text;
    uint32_t text_length;
    char **capture_names;
    uint32_t *capture_name_lengths;
} Runner;

/* The slot of root_start for a node's symbol (UINT32_MAX: no pattern can root there) */
static inline uint32_t root_slot(const Runner *r, TSSymbol symbol) {
    if (symbol < r->symbol_count) return symbol;
    return symbol == (TSSymbol)-1 /* ts_builtin_sym_error */ ? r->symbol_count : UINT32_MAX;
}

/* A compiled runner, or NULL with an exception (a SyntaxError-like ValueError for a
 * query that does not compile). */
Runner *runner_new(const TSLanguage *language, const char *text, uint32_t length);
void runner_free(Runner *runner);
/* runner.c's set-up past the query's steps (captures by pattern, root table, lone patterns,
   walkable), for a runner whose steps are in place */
bool runner_finish(Runner *r, bool quantifiers);
/* runner_steps.c: the query (compiled now if the runner was made from exported steps; NULL
   with an exception when it cannot be), a capture's name, the export and its reverse
   (NULL without an exception: the bytes are not an export of this query, language and
   build, and the caller compiles the query) */
TSQuery *runner_query(Runner *r);
const char *runner_capture_name(const Runner *r, uint32_t id, uint32_t *length);
PyObject *runner_export(const Runner *r);
Runner *runner_from_export(const TSLanguage *language, const char *text, uint32_t length,
                           const char *data, size_t size);

/* The matches of one run: match m has captures caps[start[m] .. start[m + 1]) */
typedef struct {
    TSNode node;
    uint16_t id; /* the capture id */
} RunnerCapture;

typedef struct {
    uint32_t capture_start; /* into caps */
    uint16_t pattern;
    uint16_t capture_count;
    /* a lone pattern's match made by the walk: its node's parent (ts_node_parent), which the
       walk knows; otherwise a null node (id NULL) */
    TSNode parent;
} RunnerMatch;

typedef struct {
    RunnerMatch *matches;
    size_t match_count, match_cap;
    RunnerCapture *caps;
    size_t cap_count, cap_cap;
    uint32_t error_row; /* the first ERROR or MISSING node's row, UINT32_MAX: none */
} RunnerMatches;

/* Every match of `runner` under `root`, in the order ts_query_cursor_next_match yields
 * them, appended to `out` (zeroed by the caller); with `find_errors`, out->error_row as
 * the Python extractor's _first_error finds it. 0, or -1 with an exception. `force_cursor` runs
 * query.c's cursor even where the walk could (the tests compare the two). */
int runner_run(const Runner *runner, TSNode root, bool find_errors, bool force_cursor,
               RunnerMatches *out);
void runner_matches_free(RunnerMatches *m);
/* The first ERROR or MISSING node's row alone (UINT32_MAX: none); 0, or -1. */
int runner_error_row(TSNode root, uint32_t *row);

/* runner.c's growth of the match arrays (doubling; -1 with MemoryError) */
int runner_grow(void **items, size_t *cap, size_t size);

/* walk.c: the matches of `r` under `root` appended to `out` (`r` NULL: none, only the
 * errors), and out->error_row when `find_errors`; 0, -1 with an exception, or 1 where the
 * walk cannot follow query.c's cursor (then nothing it found counts). A pattern of more
 * captures than WALK_MAX_CAPTURES runs on the cursor. */
enum { WALK_MAX_CAPTURES = 3 };
int walk_run(const Runner *r, TSNode root, bool find_errors, RunnerMatches *out);

/* The checks of the entry points that take trees: a tree_sitter.Node of the vendored
 * runtime's version (-1 with a TypeError otherwise), and the runtime's language from a
 * tree_sitter.Language. */
int node_from_object(PyObject *obj, TSNode *node);
int language_from_object(PyObject *obj, const TSLanguage **language);
/* A tree_sitter.Node for `node` of the tree held by `like` (a Node), as py-tree-sitter's
 * node_new_internal makes one. */
PyObject *new_node(PyObject *like, TSNode node);
int check_argc(const char *name, Py_ssize_t argc, Py_ssize_t expected);

extern PyTypeObject QueryType;

/* facts.c */
extern PyTypeObject FactEngineType;
int facts_init(void); /* its constants; -1 with an exception */

/* call_sites.c: the call sites of a query's call constructs, read in C */
extern PyTypeObject CallSitesType;

/* chains.c */
PyObject *chain_text(PyObject *module, PyObject *text);
PyObject *callee_chain_text(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
extern const char chain_text_doc[], callee_chain_text_doc[];
PyObject *cached_chain(PyObject *module, PyObject *text);
PyObject *cached_callee_chain(PyObject *module, PyObject *text);
extern const char cached_chain_doc[], cached_callee_chain_doc[];
/* the answers cached_chain and cached_callee_chain keep, for bytes `text` (new references) */
PyObject *chain_of_bytes(PyObject *text);
PyObject *callee_chain_of_bytes(PyObject *text);
/* the same for the text p[0 .. n) (no bytes object made when the answer is kept) */
PyObject *chain_of_span(const char *p, Py_ssize_t n);
PyObject *callee_chain_of_span(const char *p, Py_ssize_t n);
/* between two files of the fact engine: the kept answers emptied once past their bound */
void chains_next_file(void);

static inline bool is_name_start(Py_UCS4 c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* `\w` and `\s` of a bytes pattern */
static inline bool is_word_byte(unsigned char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static inline bool is_space_byte(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

#endif
