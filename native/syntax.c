/*
 * codeimpact native syntax walk: the query matches of a Python syntax tree, and its facts.
 *
 * python_matches(node, source, chain) finds, under `node` (a tree_sitter.Node), the matches
 * of the 16 patterns of indexer/languages/python.scm (PYTHON_PATTERNS below holds their text,
 * which python.py compares with the file), in the order in which TSQueryCursor yields them,
 * and returns (calls, matches, error_line):
 *
 * - calls: for each match of (call function: (_) @callee arguments: (_) @args), one tuple
 *   (callee start byte, callee end byte, callee start row + 1, args), where `args` is what
 *   python.py's `_args(args_node, source)` returns. `chain` is python.py's `_chain`
 *   (bytes -> str | None); it is called, not re-implemented, so that the strings in the
 *   facts are the very objects the query path gets from its cache (FileFacts.to_bytes is a
 *   marshal dump, whose bytes depend on which strings are shared objects);
 * - matches: for each match of the other 15 patterns, (pattern index, nodes), `nodes` being a
 *   tuple of tree_sitter.Node objects, one per capture in the order the pattern captures
 *   them (its root first, then the child steps in pattern order: PYTHON_CAPTURES);
 * - error_line: what python.py's `_first_error` finds with QueryCursor.captures of
 *   `(ERROR) @e (MISSING) @m`, the smallest start row + 1 of a visible ERROR or MISSING
 *   node, leaving out those that end at byte 0 (a MISSING node at the very start of the
 *   file: ts_query_cursor_next_capture skips a capture that ends where its range starts);
 *   None when the node has no error or no such node.
 *
 * The calls are a list of their own because only call matches make call facts: their
 * order among the other matches does not show in the facts.
 *
 * python_facts(node, source, facts, module_vars, env) runs the same walk, keeping the
 * matches as TSNodes, and then makes all of python.py's facts for the native path (in
 * python_facts.c): the definitions, decorators, calls (each call's scope and kind by
 * binary searches over the body and decorator intervals, as python.py's _Scopes.at and
 * `call_fact` find them), imports, assignments and returns, object for object as python.py's
 * query path does; the rarer patterns go back to python.py's `_other` with Node objects.
 * Over Django's 2,818 files this took extract() plus FileFacts.to_bytes from 3.3-3.6 to
 * 2.77 cpu-s, of which the parse is about 1.8.
 *
 * Matching: a small copy of query.c's state machine (ts_query_cursor__advance) for the
 * step features these patterns use (node symbols, the named wildcard `(_)`, fields,
 * captures, the `.` anchor; no quantifiers, alternatives, predicates, negated fields or
 * supertypes), applied in the same walk of the visible nodes in pre-order with the same
 * enter and leave events and the same depths, so that states start, split, fail, are
 * deduplicated (longest match), are deferred and finish where query.c's do, and matches
 * come out in the order query.c pushes them to its finished states (which next_match yields
 * first in, first out). A match thus finishes when the walk enters its last captured node
 * (a `(type)` in a function's parameters before the function, which finishes at its
 * body); matches finishing on one node come out by the depth of their pattern's root node
 * (outer first), then by pattern index. With these patterns a state splits only when a
 * last step has a later sibling that could match too (`return \<newline> x`: the line
 * continuation and `x` are both `(_) @value`), so the longest-match pass and deferred
 * finishing never act; they are copied all the same, to stay query.c's algorithm. The
 * field of a node and whether later siblings may still match come from a copy of
 * ts_tree_cursor_current_status over the walk's own stack, computed only at the nodes
 * where some state has a child step to try. Where the walk cannot follow query.c (a depth
 * beyond query.c's 16-bit start depths), python_matches returns None and the caller uses
 * the query.
 *
 * The walk visits every subtree of the file in pre-order with an explicit stack (no
 * recursion, so no depth limit), reading the runtime's Subtree structs directly: over
 * Django's trees, the query cursor's walk alone (a TSTreeCursor, with the status of every
 * visible node; a query that matches nothing) takes about as long as this whole function,
 * calls, Node objects and the calls of `chain` included (0.42 s each). The children of an
 * argument list are read with a TSTreeCursor.
 *
 * The captured nodes are tree_sitter.Node objects made as py-tree-sitter 0.26's
 * node_new_internal makes them (binding/node.c): the type and the Tree object are those of
 * the Node passed in. The runtime is our own copy (native/tree_sitter, see vendored.h): the
 * Node's TSNode is read by py-tree-sitter 0.26's object layout, after checking the type's
 * name and size and that the installed tree-sitter is the vendored version.
 */


#include "syntax.h"

/* runtime internals (hence the exact version check): the cursor status's field maps and
   symbol metadata, and the Subtree layout for the walk */
#include "language.h"
#include "length.h"
#include "parser.h"
#include "subtree.h"
#include "tree.h"
#include "tree_cursor.h"
#include "tree_sitter/vendored.h"

/* ------------------------------------------------------------------------- */
/* the patterns                                                              */

/* python.scm's patterns, in file order (python.py compares this text with the file's), and
 * their steps as query.c compiles them (ts_query__dump_steps): symbol ("_": the named
 * wildcard), field, capture name, depth; STEP_END ends a pattern. Every step contains a
 * capture (its own or a child step's), so query.c splits a state wherever a later sibling
 * could match the same step (lang_ids checks this). */
enum { STEP_DONE = 0xFFFF };

static const char *const PATTERN_TEXT[PATTERN_COUNT] = {
    "(class_definition name: (identifier) @name body: (block) @body) @class",
    "(function_definition name: (identifier) @name body: (block) @body) @function",
    "(decorator) @decorator",
    "(call function: (_) @callee arguments: (_) @args)",
    "(import_statement) @import",
    "(import_from_statement) @import_from",
    "(future_import_statement) @import_future",
    "(assignment left: (_) @lhs right: (_) @rhs) @assign",
    "(assignment left: (_) @lhs type: (type) @vartype) @annassign",
    "(return_statement (_) @value) @return",
    "(type) @annotation",
    "(for_statement left: (_) @for_lhs right: (_) @for_rhs) @for",
    "(named_expression name: (identifier) @walrus_name value: (_) @walrus_value) @walrus",
    "(with_item value: (as_pattern . (_) @with_value alias: (as_pattern_target (identifier) "
    "@with_name))) @with",
    "(for_in_clause left: (_) @for_lhs right: (_) @for_rhs) @compfor",
    "(lambda parameters: (lambda_parameters) @lambda_params) @lambda",
};

typedef struct {
    const char *symbol, *field, *capture;
    uint16_t depth;
    bool immediate; /* preceded by the `.` anchor */
} StepSpec;

#define STEP_END {NULL, NULL, NULL, STEP_DONE, false}

static const StepSpec STEP_SPECS[] = {
    {"class_definition", NULL, "class", 0, false},
    {"identifier", "name", "name", 1, false},
    {"block", "body", "body", 1, false},
    STEP_END,
    {"function_definition", NULL, "function", 0, false},
    {"identifier", "name", "name", 1, false},
    {"block", "body", "body", 1, false},
    STEP_END,
    {"decorator", NULL, "decorator", 0, false},
    STEP_END,
    {"call", NULL, NULL, 0, false},
    {"_", "function", "callee", 1, false},
    {"_", "arguments", "args", 1, false},
    STEP_END,
    {"import_statement", NULL, "import", 0, false},
    STEP_END,
    {"import_from_statement", NULL, "import_from", 0, false},
    STEP_END,
    {"future_import_statement", NULL, "import_future", 0, false},
    STEP_END,
    {"assignment", NULL, "assign", 0, false},
    {"_", "left", "lhs", 1, false},
    {"_", "right", "rhs", 1, false},
    STEP_END,
    {"assignment", NULL, "annassign", 0, false},
    {"_", "left", "lhs", 1, false},
    {"type", "type", "vartype", 1, false},
    STEP_END,
    {"return_statement", NULL, "return", 0, false},
    {"_", NULL, "value", 1, false},
    STEP_END,
    {"type", NULL, "annotation", 0, false},
    STEP_END,
    {"for_statement", NULL, "for", 0, false},
    {"_", "left", "for_lhs", 1, false},
    {"_", "right", "for_rhs", 1, false},
    STEP_END,
    {"named_expression", NULL, "walrus", 0, false},
    {"identifier", "name", "walrus_name", 1, false},
    {"_", "value", "walrus_value", 1, false},
    STEP_END,
    {"with_item", NULL, "with", 0, false},
    {"as_pattern", "value", NULL, 1, false},
    {"_", NULL, "with_value", 2, true},
    {"as_pattern_target", "alias", NULL, 2, false},
    {"identifier", NULL, "with_name", 3, false},
    STEP_END,
    {"for_in_clause", NULL, "compfor", 0, false},
    {"_", "left", "for_lhs", 1, false},
    {"_", "right", "for_rhs", 1, false},
    STEP_END,
    {"lambda", NULL, "lambda", 0, false},
    {"lambda_parameters", "parameters", "lambda_params", 1, false},
    STEP_END,
};

#define STEP_COUNT (sizeof(STEP_SPECS) / sizeof(STEP_SPECS[0]))

typedef struct {
    TSSymbol symbol; /* 0: the named wildcard (query.c's WILDCARD_SYMBOL) */
    TSFieldId field;
    int8_t slot; /* the capture's index in its match's tuple, -1: none */
    uint16_t depth;
    bool is_immediate;
} Step;

/* ------------------------------------------------------------------------- */
/* per-language ids                                                          */


/* python_facts' fields, by name (looked up per language; 0 when the grammar lacks one) */
static const char *const FIELD_NAMES[FIELD_COUNT] = {
    "body", "parameters", "return_type", "superclasses", "type", "alias", "module_name",
    "definition", "right", "function", "name", "value",
};

struct LangIds {
    const TSLanguage *language;
    bool usable; /* the grammar has every symbol and field of the patterns */
    TSFieldId f_name, f_value;
    bool facts_usable; /* python_facts' fields are all there too */
    TSFieldId fields[FIELD_COUNT];
    uint32_t symbol_count;
    uint8_t *category;   /* by public symbol: what `node.type ==` would say */
    uint32_t *root_mask; /* by symbol or alias: the patterns whose root is its public symbol */
    Step steps[STEP_COUNT];
    uint16_t first_step[PATTERN_COUNT];
    struct LangIds *next;
};

/* Grow-only (a process sees a handful of languages, whose TSLanguage is static data), so an
 * entry stays valid while a walk runs Python code that may look up another language. */
static LangIds *langs;

/* Resolves the step specs for `language` as the query compiler looks names up; false when
 * a name is missing (python.scm would not compile) or a step lacks a capture. */
static bool compile_steps(LangIds *ids) {
    const TSLanguage *language = ids->language;
    unsigned pattern = 0;
    int8_t slot = 0;
    for (size_t i = 0; i < STEP_COUNT; i++) {
        const StepSpec *spec = &STEP_SPECS[i];
        Step *step = &ids->steps[i];
        *step = (Step){0, 0, -1, spec->depth, spec->immediate};
        if (spec->depth == STEP_DONE) {
            pattern++;
            slot = 0;
            continue;
        }
        if (spec->depth == 0) {
            if (pattern >= PATTERN_COUNT) return false;
            ids->first_step[pattern] = (uint16_t)i;
        }
        if (strcmp(spec->symbol, "_") != 0) {
            step->symbol = ts_language_symbol_for_name(language, spec->symbol,
                                                       (uint32_t)strlen(spec->symbol), true);
            if (step->symbol == 0) return false;
        }
        if (spec->field != NULL) {
            step->field =
                ts_language_field_id_for_name(language, spec->field, (uint32_t)strlen(spec->field));
            if (step->field == 0) return false;
        }
        if (spec->capture != NULL) {
            if (slot == MAX_CAPTURES) return false;
            step->slot = slot++;
        }
        /* query.c's contains_captures: this step or a child step captures */
        bool contains = spec->capture != NULL;
        for (size_t j = i + 1; !contains && STEP_SPECS[j].depth != STEP_DONE &&
                               STEP_SPECS[j].depth > spec->depth;
             j++) {
            contains = STEP_SPECS[j].capture != NULL;
        }
        if (!contains) return false;
    }
    return pattern == PATTERN_COUNT;
}

const LangIds *lang_ids(const TSLanguage *language) {
    for (LangIds *ids = langs; ids != NULL; ids = ids->next) {
        if (ids->language == language) return ids;
    }
    static const struct { const char *name; uint8_t category; } names[] = {
        {"argument_list", C_ARGUMENT_LIST}, {"identifier", C_IDENTIFIER},
        {"attribute", C_ATTRIBUTE},         {"keyword_argument", C_KEYWORD_ARGUMENT},
        {"list_splat", C_LIST_SPLAT},       {"dictionary_splat", C_DICTIONARY_SPLAT},
        {"call", C_CALL},                   {"decorated_definition", C_DECORATED},
        {"decorator", C_DECORATOR},         {"typed_parameter", C_TYPED_PARAMETER},
        {"typed_default_parameter", C_TYPED_DEFAULT_PARAMETER},
        {"default_parameter", C_DEFAULT_PARAMETER},
        {"list_splat_pattern", C_LIST_SPLAT_PATTERN},
        {"dictionary_splat_pattern", C_DICTIONARY_SPLAT_PATTERN},
        {"subscript", C_SUBSCRIPT},         {"aliased_import", C_ALIASED_IMPORT},
        {"relative_import", C_RELATIVE_IMPORT}, {"import_prefix", C_IMPORT_PREFIX},
        {"dotted_name", C_DOTTED_NAME},     {"wildcard_import", C_WILDCARD_IMPORT},
        {"pattern_list", C_PATTERN_LIST},   {"tuple_pattern", C_TUPLE_PATTERN},
        {"list", C_LIST},                   {"tuple", C_TUPLE},
        {"assignment", C_ASSIGNMENT},       {"expression_statement", C_EXPRESSION_STATEMENT},
    };
    uint32_t count = ts_language_symbol_count(language);
    LangIds *ids = PyMem_RawCalloc(1, sizeof(LangIds));
    uint8_t *category = PyMem_RawCalloc(count ? count : 1, 1);
    uint32_t *root_mask = PyMem_RawCalloc(count ? count : 1, sizeof(uint32_t));
    if (ids == NULL || category == NULL || root_mask == NULL) {
        PyMem_RawFree(ids);
        PyMem_RawFree(category);
        PyMem_RawFree(root_mask);
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
    ids->f_name = ts_language_field_id_for_name(language, "name", 4);
    ids->f_value = ts_language_field_id_for_name(language, "value", 5);
    ids->usable = ids->f_name && ids->f_value && compile_steps(ids);
    ids->facts_usable = ids->usable;
    for (int f = 0; f < FIELD_COUNT; f++) {
        ids->fields[f] = ts_language_field_id_for_name(language, FIELD_NAMES[f],
                                                       (uint32_t)strlen(FIELD_NAMES[f]));
        if (ids->fields[f] == 0) ids->facts_usable = false;
    }
    for (uint32_t s = 0; s < count && ids->usable; s++) {
        TSSymbol public_symbol = ts_language_public_symbol(language, (TSSymbol)s);
        for (unsigned p = 0; p < PATTERN_COUNT; p++) {
            if (ids->steps[ids->first_step[p]].symbol == public_symbol) root_mask[s] |= 1u << p;
        }
    }
    ids->symbol_count = count;
    ids->category = category;
    ids->root_mask = root_mask;
    ids->next = langs;
    langs = ids;
    return ids;
}

static inline uint8_t category_of(const LangIds *ids, TSNode node) {
    TSSymbol s = ts_node_symbol(node);
    return s < ids->symbol_count ? ids->category[s] : C_OTHER;
}

uint8_t syntax_category(const LangIds *ids, TSNode node) { return category_of(ids, node); }

TSFieldId syntax_field(const LangIds *ids, int which) { return ids->fields[which]; }

bool syntax_facts_usable(const LangIds *ids) { return ids->usable && ids->facts_usable; }

/* ------------------------------------------------------------------------- */
/* arguments                                                                 */


/* source[start:end] as Python slices it */
void span(const Ctx *ctx, TSNode node, const char **ptr, Py_ssize_t *len) {
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(node);
    Py_ssize_t end = (Py_ssize_t)ts_node_end_byte(node);
    if (start > ctx->src_len) start = ctx->src_len;
    if (end > ctx->src_len) end = ctx->src_len;
    if (end < start) end = start;
    *ptr = ctx->src + start;
    *len = end - start;
}

PyObject *call_on_text(const Ctx *ctx, PyObject *fn, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(ctx, node, &ptr, &len);
    PyObject *text = PyBytes_FromStringAndSize(ptr, len);
    if (text == NULL) return NULL;
    PyObject *out = PyObject_CallOneArg(fn, text);
    Py_DECREF(text);
    return out;
}

/* _chain(source[node.start_byte : node.end_byte]) */
static PyObject *chain_of(const Ctx *ctx, TSNode node) {
    return call_on_text(ctx, ctx->chain, node);
}

/* Appends (key, value) to out, stealing both references. */
int append_pair(PyObject *out, PyObject *key, PyObject *value) {
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

/* A partial match: query.c's QueryState with its capture list. */
typedef struct {
    TSNode nodes[MAX_CAPTURES];
    int8_t slots[MAX_CAPTURES];
    uint8_t capture_count;
    uint16_t step, pattern;
    uint32_t start_depth;
    bool seeking_immediate_match, has_in_progress_alternatives;
} State;

/* The children of one subtree being walked: a TreeCursor stack entry's parent. */
typedef struct {
    const Subtree *children;
    uint32_t count, index, structural_index;
    const TSSymbol *alias_sequence;
    uint16_t production_id;
    Length position;         /* where children[index] starts (after its padding) */
    uint32_t current;        /* the child being visited, and its structural index (the */
    uint32_t current_structural; /* next non-extra child's for an extra one)          */
    uint32_t depth;          /* query.c's depth of a visible child here */
    bool owner_visible;      /* leaving the subtree whose children these are is an event */
} Level;

typedef struct {
    State *states;
    size_t state_count, state_cap;
    Level *levels;
    size_t level_count, level_cap;
    bool find_errors;
    uint32_t error_row; /* UINT32_MAX: none found */
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

static int insert_state(Walk *w, size_t index, const State *state) {
    if (w->state_count == w->state_cap &&
        grow((void **)&w->states, &w->state_cap, sizeof(State)) < 0)
        return -1;
    memmove(&w->states[index + 1], &w->states[index], (w->state_count - index) * sizeof(State));
    w->states[index] = *state;
    w->state_count++;
    return 0;
}

static void erase_state(Walk *w, size_t index) {
    memmove(&w->states[index], &w->states[index + 1],
            (w->state_count - index - 1) * sizeof(State));
    w->state_count--;
}

/* ts_tree_cursor_current_status for the child being visited at the top level (fields and
 * later siblings; the patterns have no supertype steps). */
typedef struct {
    TSFieldId field;
    bool has_later_siblings, has_later_named_siblings, can_have_later_siblings_with_this_field;
} Status;

static Status current_status(const Walk *w, const TSLanguage *language) {
    Status st = {0, false, false, false};
    for (size_t l = w->level_count; l-- > 0;) {
        const Level *level = &w->levels[l];
        const Subtree *entry = &level->children[level->current];
        const TSSymbol *aliases = level->alias_sequence;
#define SUBTREE_SYMBOL(subtree, structural_index)                                           \
    ((!ts_subtree_extra(subtree) && aliases && aliases[structural_index])                   \
         ? aliases[structural_index]                                                        \
         : ts_subtree_symbol(subtree))
        /* stop walking up at a visible ancestor: fields refer to nodes through hidden
           wrapper nodes */
        TSSymbol entry_symbol = SUBTREE_SYMBOL(*entry, level->current_structural);
        if (l != w->level_count - 1 && ts_language_symbol_metadata(language, entry_symbol).visible)
            break;
        if (!st.has_later_named_siblings) {
            uint32_t structural_index = level->current_structural;
            if (!ts_subtree_extra(*entry)) structural_index++;
            for (uint32_t j = level->current + 1; j < level->count; j++) {
                Subtree sibling = level->children[j];
                TSSymbol symbol = SUBTREE_SYMBOL(sibling, structural_index);
                TSSymbolMetadata metadata = ts_language_symbol_metadata(language, symbol);
                if (metadata.visible) {
                    st.has_later_siblings = true;
                    if (metadata.named) {
                        st.has_later_named_siblings = true;
                        break;
                    }
                } else if (ts_subtree_visible_child_count(sibling) > 0) {
                    st.has_later_siblings = true;
                    if (sibling.ptr->named_child_count > 0) {
                        st.has_later_named_siblings = true;
                        break;
                    }
                }
                if (!ts_subtree_extra(sibling)) structural_index++;
            }
        }
#undef SUBTREE_SYMBOL
        if (!ts_subtree_extra(*entry)) {
            const TSFieldMapEntry *map, *map_end;
            ts_language_field_map(language, level->production_id, &map, &map_end);
            if (!st.field) {
                for (const TSFieldMapEntry *m = map; m < map_end; m++) {
                    if (!m->inherited && m->child_index == level->current_structural) {
                        st.field = m->field_id;
                        break;
                    }
                }
            }
            if (st.field) {
                for (const TSFieldMapEntry *m = map; m < map_end; m++) {
                    if (m->field_id == st.field && m->child_index > level->current_structural) {
                        st.can_have_later_siblings_with_this_field = true;
                        break;
                    }
                }
            }
        }
    }
    return st;
}

static PyObject *emit_call(Ctx *ctx, TSNode callee, TSNode args);

/* A tree_sitter.Node for `node`, as py-tree-sitter's node_new_internal makes one. */
PyObject *new_node(const Ctx *ctx, TSNode node) {
    NodeObject *self = PyObject_New(NodeObject, ctx->node_type);
    if (self == NULL) return NULL;
    self->node = node;
    self->children = NULL;
    self->tree = Py_NewRef(ctx->tree);
    return (PyObject *)self;
}

/* A finished match, appended to the calls or to the matches. */
static int finish(Ctx *ctx, const State *state) {
    PyObject *item;
    if (state->pattern == P_CALL) {
        /* the pattern captures callee then args, the slots of its two steps */
        if (state->capture_count != 2) {
            PyErr_SetString(PyExc_SystemError, "a call match without its two captures");
            return -1;
        }
        item = emit_call(ctx, state->nodes[0], state->nodes[1]);
        if (item == NULL) return -1;
        int rc = PyList_Append(ctx->calls, item);
        Py_DECREF(item);
        return rc;
    }
    if (ctx->matches == NULL) {
        if (ctx->found_count == ctx->found_cap &&
            grow((void **)&ctx->found, &ctx->found_cap, sizeof(Found)) < 0)
            return -1;
        Found *f = &ctx->found[ctx->found_count++];
        f->pattern = state->pattern;
        f->count = state->capture_count;
        for (uint8_t i = 0; i < state->capture_count; i++) f->nodes[state->slots[i]] = state->nodes[i];
        return 0;
    }
    PyObject *nodes = PyTuple_New(state->capture_count);
    if (nodes == NULL) return -1;
    for (uint8_t i = 0; i < state->capture_count; i++) {
        PyObject *node = new_node(ctx, state->nodes[i]);
        if (node == NULL) {
            Py_DECREF(nodes);
            return -1;
        }
        PyTuple_SET_ITEM(nodes, state->slots[i], node);
    }
    PyObject *pattern = PyLong_FromLong(state->pattern);
    if (pattern == NULL) {
        Py_DECREF(nodes);
        return -1;
    }
    item = PyTuple_Pack(2, pattern, nodes);
    Py_DECREF(pattern);
    Py_DECREF(nodes);
    if (item == NULL) return -1;
    int rc = PyList_Append(ctx->matches, item);
    Py_DECREF(item);
    return rc;
}

/* ts_query_cursor__add_state: states stay ordered by start depth, then pattern. */
static int add_state(const LangIds *ids, Walk *w, unsigned pattern, uint32_t depth) {
    uint16_t first = ids->first_step[pattern];
    size_t index = w->state_count;
    while (index > 0) {
        const State *prev = &w->states[index - 1];
        if (prev->start_depth < depth) break;
        if (prev->start_depth == depth) {
            if (prev->pattern == pattern && prev->step == first) return 0;
            if (prev->pattern <= pattern) break;
        }
        index--;
    }
    State state = {.capture_count = 0,
                   .step = first,
                   .pattern = (uint16_t)pattern,
                   .start_depth = depth,
                   .seeking_immediate_match = true,
                   .has_in_progress_alternatives = false};
    return insert_state(w, index, &state);
}

/* ts_query_cursor__state_precedes */
static bool state_precedes(const State *a, const State *b) {
    if (a->start_depth != b->start_depth) return a->start_depth < b->start_depth;
    if (a->pattern != b->pattern) return a->pattern < b->pattern;
    if ((a->capture_count == 0) != (b->capture_count == 0)) return a->capture_count == 0;
    if (a->capture_count == 0) return false;
    return ts_node_start_byte(a->nodes[0]) < ts_node_start_byte(b->nodes[0]);
}

/* ts_query_cursor__compare_nodes: which node comes first in a depth-first traversal */
static int compare_nodes(TSNode left, TSNode right) {
    if (left.id != right.id) {
        uint32_t left_start = ts_node_start_byte(left), right_start = ts_node_start_byte(right);
        if (left_start < right_start) return -1;
        if (left_start > right_start) return 1;
        uint32_t left_end = ts_node_end_byte(left), right_end = ts_node_end_byte(right);
        if (left_end > right_end) return -1;
        if (left_end < right_end) return 1;
    }
    return 0;
}

/* ts_query_cursor__compare_captures */
static void compare_captures(const State *left, const State *right, bool *left_contains_right,
                             bool *right_contains_left) {
    *left_contains_right = true;
    *right_contains_left = true;
    unsigned i = 0, j = 0;
    for (;;) {
        if (i < left->capture_count) {
            if (j < right->capture_count) {
                if (left->nodes[i].id == right->nodes[j].id &&
                    left->slots[i] == right->slots[j]) {
                    i++;
                    j++;
                } else {
                    switch (compare_nodes(left->nodes[i], right->nodes[j])) {
                    case -1:
                        *right_contains_left = false;
                        i++;
                        break;
                    case 1:
                        *left_contains_right = false;
                        j++;
                        break;
                    default:
                        *right_contains_left = false;
                        *left_contains_right = false;
                        i++;
                        j++;
                        break;
                    }
                }
            } else {
                *right_contains_left = false;
                break;
            }
        } else {
            if (j < right->capture_count) *left_contains_right = false;
            break;
        }
    }
}

/*
 * The query cursor enters the visible node `node` at `depth` (ts_query_cursor__advance's
 * "Enter a new node" branch): new states for the patterns rooted at its symbol (`roots`),
 * every state whose next step is at this depth tries the node (and splits when a later
 * sibling could match the same step), then the longest-match pass, and the finished states
 * are emitted in the order of the states array.
 */
static int enter(Ctx *ctx, Walk *w, TSNode node, uint32_t roots, uint32_t depth) {
    const LangIds *ids = ctx->ids;
    for (unsigned p = 0; roots != 0; p++, roots >>= 1) {
        if ((roots & 1) && add_state(ids, w, p, depth) < 0) return -1;
    }

    bool touched = false, any_done = false, have_node = false, have_status = false;
    Status status = {0};
    TSSymbol symbol = 0;
    bool is_named = false, is_error = false;
    for (size_t j = 0, copy_count = 0; j < w->state_count; j += 1 + copy_count) {
        State *state = &w->states[j];
        const Step *step = &ids->steps[state->step];
        state->has_in_progress_alternatives = false;
        copy_count = 0;
        if (step->depth == STEP_DONE) {
            any_done = true;
            continue;
        }
        if (state->start_depth + step->depth != depth) continue;
        touched = true;
        if (!have_node) {
            symbol = ts_node_symbol(node);
            is_named = ts_node_is_named(node);
            is_error = symbol == ts_builtin_sym_error;
            have_node = true;
        }
        bool does_match = step->symbol == 0 ? !is_error && is_named : symbol == step->symbol;
        bool anchored = (step->is_immediate && is_named) || state->seeking_immediate_match;
        /* the status is asked only where it decides something (not at a pattern's root) */
        if ((!anchored || step->field) && !have_status) {
            status = current_status(w, ids->language);
            have_status = true;
        }
        bool later_sibling_can_match = !anchored && status.has_later_siblings;
        if (step->field) {
            if (step->field == status.field) {
                if (!status.can_have_later_siblings_with_this_field) {
                    later_sibling_can_match = false;
                }
            } else {
                does_match = false;
            }
        }
        if (!does_match) {
            if (!later_sibling_can_match) {
                erase_state(w, j);
                j--; /* (wraps around at 0, as query.c's unsigned index does) */
            }
            continue;
        }
        /* a later sibling could match this step too: keep a copy that skips this node */
        if (later_sibling_can_match) {
            State copy = *state;
            if (insert_state(w, j + 1, &copy) < 0) return -1;
            state = &w->states[j];
            copy_count++;
        }
        if (step->slot >= 0) {
            state->nodes[state->capture_count] = node;
            state->slots[state->capture_count] = step->slot;
            state->capture_count++;
        }
        state->step++;
        /* (the patterns have no anonymous wildcard, after which query.c seeks an
           immediate match) */
        state->seeking_immediate_match = false;
    }
    if (!touched && !any_done) return 0; /* the passes below would change nothing */

    /* ts_query_cursor__sort_states_by_capture: a stable insertion sort */
    for (size_t i = 1; i < w->state_count; i++) {
        if (!state_precedes(&w->states[i], &w->states[i - 1])) continue;
        State key = w->states[i];
        size_t j = i;
        do {
            w->states[j] = w->states[j - 1];
            j--;
        } while (j > 0 && state_precedes(&key, &w->states[j - 1]));
        w->states[j] = key;
    }

    /* the longest-match criterion, and finishing */
    for (size_t j = 0; j < w->state_count; j++) {
        State *state = &w->states[j];
        bool did_remove = false;
        for (size_t k = j + 1; k < w->state_count; k++) {
            State *other = &w->states[k];
            if (other->start_depth != state->start_depth || other->pattern != state->pattern) break;
            if (state->capture_count > 0 && other->capture_count > 0 &&
                ts_node_start_byte(other->nodes[0]) >=
                    ts_node_end_byte(state->nodes[state->capture_count - 1]))
                break;
            bool left_contains_right, right_contains_left;
            compare_captures(state, other, &left_contains_right, &right_contains_left);
            if (left_contains_right) {
                if (state->step == other->step &&
                    (other->seeking_immediate_match || !state->seeking_immediate_match)) {
                    erase_state(w, k);
                    k--;
                    continue;
                }
                other->has_in_progress_alternatives = true;
            }
            if (right_contains_left) {
                if (state->step == other->step &&
                    (state->seeking_immediate_match || !other->seeking_immediate_match)) {
                    erase_state(w, j);
                    j--;
                    did_remove = true;
                    break;
                }
                state->has_in_progress_alternatives = true;
            }
        }
        if (!did_remove && ids->steps[state->step].depth == STEP_DONE &&
            !state->has_in_progress_alternatives) {
            State done = *state;
            erase_state(w, j);
            j--;
            if (finish(ctx, &done) < 0) return -1;
        }
    }
    return 0;
}

/* The query cursor leaves a visible node at `depth`: deferred states whose match lay inside
 * it finish, states that needed more inside it fail. */
static int leave(Ctx *ctx, Walk *w, uint32_t depth) {
    const LangIds *ids = ctx->ids;
    size_t deleted = 0, n = w->state_count;
    for (size_t i = 0; i < n; i++) {
        State *state = &w->states[i];
        uint16_t step_depth = ids->steps[state->step].depth;
        if (step_depth == STEP_DONE && (state->start_depth > depth || depth == 0)) {
            if (finish(ctx, state) < 0) return -1;
            deleted++;
        } else if (step_depth != STEP_DONE && state->start_depth + step_depth > depth) {
            deleted++;
        } else if (deleted > 0) {
            w->states[i - deleted] = *state;
        }
    }
    w->state_count -= deleted;
    return 0;
}

static int push_level(Walk *w, Subtree owner, const TSLanguage *language, Length position,
                      uint32_t depth, bool owner_visible) {
    if (w->level_count == w->level_cap &&
        grow((void **)&w->levels, &w->level_cap, sizeof(Level)) < 0)
        return -1;
    w->levels[w->level_count++] = (Level){
        .children = ts_subtree_children(owner),
        .count = owner.ptr->child_count,
        .index = 0,
        .structural_index = 0,
        .alias_sequence = ts_language_alias_sequence(language, owner.ptr->production_id),
        .production_id = owner.ptr->production_id,
        .position = position,
        .current = 0,
        .current_structural = 0,
        .depth = depth,
        .owner_visible = owner_visible,
    };
    return 0;
}

/* query.c keeps start depths in 16 bits; deeper trees are left to the query */
#define MAX_DEPTH 0xFFF0u

/*
 * Every subtree under the start node in pre-order, hidden ones included (the pre-order of
 * the visible nodes, which the query cursor follows, is the induced order), tracking
 * positions and aliases as the tree cursor does, and the query cursor's depth (the number
 * of visible ancestors) and its enter and leave events of the visible nodes. A visible
 * node's symbol is the one the query sees (the alias if any, mapped to its public symbol).
 * Returns 0, -1 with an exception set, or 1 when the walk cannot reproduce the query.
 */
static int walk(Ctx *ctx, Walk *w, TSNode root) {
    const LangIds *ids = ctx->ids;
    const TSLanguage *language = ids->language;
    const TSTree *tree = root.tree;
    Subtree top = *(const Subtree *)root.id;
    TSSymbol root_symbol = ts_node_symbol(root);
    if (w->find_errors && (root_symbol == ts_builtin_sym_error || ts_subtree_missing(top)) &&
        ts_node_end_byte(root) > 0)
        w->error_row = ts_node_start_point(root).row;
    /* (root_mask is by raw symbol; the start node's symbol is public already) */
    uint32_t roots = 0;
    for (unsigned p = 0; p < PATTERN_COUNT; p++) {
        if (ids->steps[ids->first_step[p]].symbol == root_symbol) roots |= 1u << p;
    }
    if (enter(ctx, w, root, roots, 0) < 0) return -1;
    if (ts_subtree_child_count(top) == 0) return leave(ctx, w, 0);
    if (push_level(w, top, language,
                   (Length){ts_node_start_byte(root), ts_node_start_point(root)}, 1, true) < 0)
        return -1;
    while (w->level_count > 0) {
        Level *level = &w->levels[w->level_count - 1];
        if (level->index == level->count) {
            bool owner_visible = level->owner_visible;
            uint32_t owner_depth = level->depth - 1;
            w->level_count--;
            if (owner_visible && leave(ctx, w, owner_depth) < 0) return -1;
            continue;
        }
        const Subtree *child = &level->children[level->index];
        Length position = level->position;
        TSSymbol alias = 0;
        level->current = level->index;
        level->current_structural = level->structural_index;
        if (!ts_subtree_extra(*child)) {
            if (level->alias_sequence) alias = level->alias_sequence[level->structural_index];
            level->structural_index++;
        }
        level->position = length_add(position, ts_subtree_size(*child));
        if (++level->index < level->count) {
            level->position =
                length_add(level->position, ts_subtree_padding(level->children[level->index]));
        }

        uint32_t depth = level->depth;
        bool visible = ts_subtree_visible(*child) || alias;
        if (visible) {
            TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
            if (w->find_errors && position.extent.row < w->error_row &&
                (symbol == ts_builtin_sym_error || ts_subtree_missing(*child)) &&
                position.bytes + ts_subtree_size(*child).bytes > 0)
                w->error_row = position.extent.row;
            uint32_t roots = symbol < ids->symbol_count ? ids->root_mask[symbol] : 0;
            if (roots != 0 || w->state_count > 0) {
                if (depth >= MAX_DEPTH) return 1;
                if (enter(ctx, w, ts_node_new(tree, child, position, alias), roots, depth) < 0)
                    return -1;
            }
        }
        if (ts_subtree_child_count(*child) > 0) {
            /* (`level` is stale once the stack grows) */
            if (push_level(w, *child, language, position, visible ? depth + 1 : depth,
                           visible) < 0)
                return -1;
        } else if (visible && w->state_count > 0) {
            if (leave(ctx, w, depth) < 0) return -1;
        }
    }
    /* the query cursor halts after leaving the start node: what is left never finishes */
    w->state_count = 0;
    return 0;
}

static PyObject *emit_call(Ctx *ctx, TSNode callee, TSNode args) {
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
    /* (not garbage-collected: new_node makes Nodes with PyObject_New, as py-tree-sitter does) */
    if (type->tp_basicsize != (Py_ssize_t)sizeof(NodeObject) ||
        strcmp(type->tp_name, "tree_sitter.Node") != 0 || PyType_IS_GC(type)) {
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
    if (ts_node_is_null(*node) || node->tree == NULL || ((NodeObject *)obj)->tree == NULL) {
        PyErr_SetString(PyExc_TypeError, "a null tree_sitter.Node");
        return -1;
    }
    return 0;
}

/* Runs the walk of `root_obj` (a checked Node whose TSNode is `root`) over `source` into
 * ctx: the calls as tuples, the other matches as Node tuples in ctx->matches, or, when
 * `collect`, as TSNodes in ctx->found. Returns walk()'s answer; *error_row is UINT32_MAX
 * when no error node was found. The caller frees ctx (free_walk). */
int run_walk(Ctx *ctx, const LangIds *ids, PyObject *root_obj, TSNode root,
                    PyObject *source, PyObject *chain, bool collect, uint32_t *error_row) {
    ctx->ids = ids;
    ctx->src = PyBytes_AS_STRING(source);
    ctx->src_len = PyBytes_GET_SIZE(source);
    ctx->chain = chain;
    ctx->node_type = Py_TYPE(root_obj);
    ctx->tree = ((NodeObject *)root_obj)->tree;
    ctx->calls = PyList_New(0);
    ctx->matches = collect ? NULL : PyList_New(0);
    ctx->found = NULL;
    ctx->found_count = ctx->found_cap = 0;
    ctx->cursor = ts_tree_cursor_new(root);
    Walk w = {0};
    w.find_errors = ts_node_has_error(root);
    w.error_row = UINT32_MAX;
    int rc = ctx->calls == NULL || (!collect && ctx->matches == NULL) ? -1 : walk(ctx, &w, root);
    PyMem_Free(w.states);
    PyMem_Free(w.levels);
    *error_row = w.error_row;
    return rc;
}

void free_walk(Ctx *ctx) {
    ts_tree_cursor_delete(&ctx->cursor);
    PyMem_Free(ctx->found);
    Py_XDECREF(ctx->calls);
    Py_XDECREF(ctx->matches);
}

/* The count check every fastcall entry point makes. */
int check_argc(const char *name, Py_ssize_t argc, Py_ssize_t expected) {
    if (argc == expected) return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected, argc);
    return -1;
}

/* The checks both entry points make: a Node of the vendored runtime and bytes. */
int check_tree_args(PyObject *const *argv, TSNode *root) {
    if (node_from_object(argv[0], root) < 0) return -1;
    if (!PyBytes_Check(argv[1])) {
        PyErr_Format(PyExc_TypeError, "source must be bytes, not %.200s", Py_TYPE(argv[1])->tp_name);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(python_matches_doc,
"python_matches(node, source, chain, /)\n--\n\n"
"The matches of python.scm's patterns under a Python syntax tree node, in the query's\n"
"order, as (calls, matches, error_line): calls as\n"
"[(callee_start_byte, callee_end_byte, callee_start_row + 1, args), ...] for the pattern\n"
"(call function: (_) @callee arguments: (_) @args), `args` as python.py's _args gives it,\n"
"`chain` being python.py's _chain; matches as [(pattern_index, (node, ...)), ...] for\n"
"the other patterns, a node per capture in PYTHON_CAPTURES order; error_line the first\n"
"line of an ERROR or MISSING node, or None. None when the tree has a shape this walk does\n"
"not reproduce the query on (use the query then).");

static PyObject *python_matches(PyObject *Py_UNUSED(module), PyObject *const *argv,
                                Py_ssize_t argc) {
    if (check_argc("python_matches", argc, 3) < 0) return NULL;
    TSNode root;
    if (check_tree_args(argv, &root) < 0) return NULL;
    if (!PyCallable_Check(argv[2])) {
        PyErr_SetString(PyExc_TypeError, "chain must be callable");
        return NULL;
    }
    const LangIds *ids = lang_ids(ts_node_language(root));
    if (ids == NULL) return NULL;
    if (!ids->usable) Py_RETURN_NONE;

    Ctx ctx;
    uint32_t error_row;
    int rc = run_walk(&ctx, ids, argv[0], root, argv[1], argv[2], false, &error_row);
    PyObject *result = NULL;
    if (rc == 0) {
        if (error_row == UINT32_MAX) {
            result = Py_BuildValue("(OOO)", ctx.calls, ctx.matches, Py_None);
        } else {
            result = Py_BuildValue("(OOk)", ctx.calls, ctx.matches, (unsigned long)error_row + 1);
        }
    } else if (rc > 0) {
        result = Py_NewRef(Py_None); /* a shape the walk does not reproduce the query on */
    }
    free_walk(&ctx);
    return result;
}

/* ------------------------------------------------------------------------- */
/* call facts                                                                */

PyObject *KIND_DECORATOR, *NO_SCOPE;
static PyObject *KIND_CALL, *NO_CHAIN; /* only the call facts' */



/* bisect.bisect_right over the starts, minus one: the last interval starting at or before
 * pos, or -1 */
Py_ssize_t last_starting_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (pos < iv[mid].start) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo - 1;
}

/* python.py's _Scopes.at: the innermost interval holding pos, up the parent chain */
PyObject *scope_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
    for (Py_ssize_t i = last_starting_at(iv, n, pos); i >= 0; i = iv[i].parent) {
        if (iv[i].start <= pos && pos < iv[i].end) return iv[i].local;
    }
    return NO_SCOPE;
}


/* The length of the name a chain starts with, as python.py's _HEAD (`[A-Za-z_]\w*` of a
 * str pattern) matches it; 0 when it matches nothing. */
static Py_ssize_t head_length(PyObject *chain) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(chain);
    int kind = PyUnicode_KIND(chain);
    const void *data = PyUnicode_DATA(chain);
    if (n == 0 || !is_name_start(PyUnicode_READ(kind, data, 0))) return 0;
    Py_ssize_t i = 1;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c != '_' && !Py_UNICODE_ISALNUM(c)) break;
        i++;
    }
    return i;
}

/* Whether python.py's `local_scopes.rename(chain, start)` may return anything but `chain`:
 * it does only for a chain whose head is in `names` (one without a head, or not a str, is
 * left to rename too). 1 or 0, -1 with an exception. */
static int may_rename(PyObject *chain, PyObject *names) {
    if (PySet_GET_SIZE(names) == 0) return 0;
    Py_ssize_t h;
    if (!PyUnicode_Check(chain) || (h = head_length(chain)) == 0) return 1;
    PyObject *head = PyUnicode_Substring(chain, 0, h); /* chain itself when all of it */
    if (head == NULL) return -1;
    int found = PySet_Contains(names, head);
    Py_DECREF(head);
    return found;
}

/* The chain of a callee that has none, as python.py builds it: "?." + the name at the end of
 * the text (re.search(rb"([A-Za-z_]\w*)\s*$", text)), "?" when it does not end in a name */
static PyObject *unknown_chain(const char *text, Py_ssize_t len) {
    Py_ssize_t end = len;
    while (end > 0 && is_space_byte((unsigned char)text[end - 1])) end--;
    Py_ssize_t start = end;
    while (start > 0 && is_word_byte((unsigned char)text[start - 1])) start--;
    while (start < end && !is_name_start((unsigned char)text[start])) start++; /* digits */
    if (start == end) return Py_NewRef(NO_CHAIN);
    PyObject *chain = PyUnicode_New(2 + end - start, 127);
    if (chain == NULL) return NULL;
    Py_UCS1 *data = PyUnicode_1BYTE_DATA(chain);
    data[0] = '?';
    data[1] = '.';
    memcpy(data + 2, text + start, (size_t)(end - start));
    return chain;
}

/* The call facts of `calls` (a tuple of python_matches' call tuples), as a new list. */
PyObject *call_facts_list(PyObject *calls, const char *src, Py_ssize_t src_len,
                                 const Interval *scopes, Py_ssize_t n_scopes,
                                 const Interval *decs, Py_ssize_t n_decs, PyObject *chain_fn,
                                 PyObject *names, PyObject *rename, PyTypeObject *fact_type) {
    PyObject *facts = PyList_New(PyTuple_GET_SIZE(calls));
    if (facts == NULL) return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(calls); k++) {
        PyObject *call = PyTuple_GET_ITEM(calls, k);
        if (!PyTuple_Check(call) || PyTuple_GET_SIZE(call) != 4) {
            PyErr_SetString(PyExc_TypeError, "calls must hold 4-tuples");
            goto error;
        }
        PyObject *start_obj = PyTuple_GET_ITEM(call, 0);
        Py_ssize_t start = PyLong_AsSsize_t(start_obj);
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(call, 1));
        if (PyErr_Occurred()) goto error;
        if (start < 0 || start > end || end > src_len) {
            PyErr_SetString(PyExc_ValueError, "a callee span outside of the source");
            goto error;
        }
        PyObject *scope, *kind;
        Py_ssize_t d = last_starting_at(decs, n_decs, start);
        if (d >= 0 && start < decs[d].end) {
            scope = decs[d].local;
            kind = KIND_DECORATOR;
        } else {
            scope = scope_at(scopes, n_scopes, start);
            kind = KIND_CALL;
        }
        PyObject *text = PyBytes_FromStringAndSize(src + start, end - start);
        if (text == NULL) goto error;
        PyObject *chain = PyObject_CallOneArg(chain_fn, text);
        if (chain == NULL) {
            Py_DECREF(text);
            goto error;
        }
        if (chain != Py_None) {
            int renamed = may_rename(chain, names);
            if (renamed > 0) {
                PyObject *args[2] = {chain, start_obj};
                Py_SETREF(chain, PyObject_Vectorcall(rename, args, 2, NULL));
            }
            if (renamed < 0 || chain == NULL) {
                Py_XDECREF(chain);
                Py_DECREF(text);
                goto error;
            }
        }
        if (chain == Py_None) {
            Py_SETREF(chain, unknown_chain(PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)));
        }
        Py_DECREF(text);
        if (chain == NULL) goto error;
        /* what tuple.__new__(fact_type, items) does, without the tuple of items */
        PyObject *fact = fact_type->tp_alloc(fact_type, 5);
        if (fact == NULL) {
            Py_DECREF(chain);
            goto error;
        }
        PyTuple_SET_ITEM(fact, 0, Py_NewRef(scope));
        PyTuple_SET_ITEM(fact, 1, chain);
        PyTuple_SET_ITEM(fact, 2, Py_NewRef(PyTuple_GET_ITEM(call, 2)));
        PyTuple_SET_ITEM(fact, 3, Py_NewRef(kind));
        PyTuple_SET_ITEM(fact, 4, Py_NewRef(PyTuple_GET_ITEM(call, 3)));
        PyList_SET_ITEM(facts, k, fact);
    }
    return facts;
error:
    Py_DECREF(facts);
    return NULL;
}

static PyMethodDef syntax_methods[] = {
    {"python_matches", (PyCFunction)(void (*)(void))python_matches, METH_FASTCALL,
     python_matches_doc},
    {"python_facts", (PyCFunction)(void (*)(void))python_facts, METH_FASTCALL, python_facts_doc},
    {"chain_text", (PyCFunction)chain_text, METH_O, chain_text_doc},
    {"callee_chain_text", (PyCFunction)(void (*)(void))callee_chain_text, METH_FASTCALL,
     callee_chain_text_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef syntax_module = {
    PyModuleDef_HEAD_INIT, "_syntax",
    "codeimpact native syntax walks over py-tree-sitter trees (see native/syntax.py)", -1,
    syntax_methods,
};

/* PYTHON_PATTERNS: the patterns' text; PYTHON_CAPTURES: per pattern, its capture names in
 * the order of a match's nodes */
static int add_patterns(PyObject *m) {
    PyObject *patterns = PyTuple_New(PATTERN_COUNT);
    PyObject *captures = PyTuple_New(PATTERN_COUNT);
    if (patterns == NULL || captures == NULL) goto error;
    size_t i = 0;
    for (Py_ssize_t p = 0; p < PATTERN_COUNT; p++) {
        PyObject *text = PyUnicode_FromString(PATTERN_TEXT[p]);
        if (text == NULL) goto error;
        PyTuple_SET_ITEM(patterns, p, text);
        PyObject *names = PyList_New(0);
        if (names == NULL) goto error;
        for (; STEP_SPECS[i].depth != STEP_DONE; i++) {
            if (STEP_SPECS[i].capture == NULL) continue;
            PyObject *name = PyUnicode_FromString(STEP_SPECS[i].capture);
            if (name == NULL || PyList_Append(names, name) < 0) {
                Py_XDECREF(name);
                Py_DECREF(names);
                goto error;
            }
            Py_DECREF(name);
        }
        i++; /* STEP_END */
        PyObject *t = PyList_AsTuple(names);
        Py_DECREF(names);
        if (t == NULL) goto error;
        PyTuple_SET_ITEM(captures, p, t);
    }
    if (PyModule_AddObjectRef(m, "PYTHON_PATTERNS", patterns) < 0 ||
        PyModule_AddObjectRef(m, "PYTHON_CAPTURES", captures) < 0)
        goto error;
    Py_DECREF(patterns);
    Py_DECREF(captures);
    return 0;
error:
    Py_XDECREF(patterns);
    Py_XDECREF(captures);
    return -1;
}

PyMODINIT_FUNC PyInit__syntax(void) {
    KIND_CALL = PyUnicode_InternFromString("call");
    KIND_DECORATOR = PyUnicode_InternFromString("decorator");
    NO_SCOPE = PyUnicode_FromStringAndSize("", 0);
    NO_CHAIN = PyUnicode_FromStringAndSize("?", 1);
    if (KIND_CALL == NULL || KIND_DECORATOR == NULL || NO_SCOPE == NULL || NO_CHAIN == NULL)
        return NULL;
    if (python_facts_init() < 0) return NULL;
    PyObject *m = PyModule_Create(&syntax_module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "TREE_SITTER_VERSION", CODEIMPACT_VENDORED_PY_TREE_SITTER) <
            0 ||
        add_patterns(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
