/*
 * A tree-sitter query of any language, compiled by the vendored runtime (ts_query_new),
 * and its matches over a tree, in the order ts_query_cursor_next_match yields them.
 *
 * Two ways to the same matches:
 *
 * - query.c's own cursor (ts_query_cursor_exec / next_match), which implements every
 *   feature of the query language;
 * - a walk of the tree that runs query.c's matching algorithm (ts_query_cursor__advance)
 *   over the very steps ts_query_new compiled (runner_export_steps), for the queries whose
 *   steps use only node symbols, wildcards, fields, captures and the `.` anchor before a
 *   node (no alternatives, quantifiers, predicates, negated fields or supertypes): the
 *   steps are the query's, so no pattern is written down in C (walk.c says why it is
 *   faster).
 *
 * The walk runs the queries whose steps it implements, the cursor the others and wherever
 * the walk cannot follow it; the tests compare the two on every query of the languages and
 * on Django and the stdlib.
 */

#include "runner.h"

#include "language.h" /* ts_language_public_symbol, for the table of pattern roots */

/* ------------------------------------------------------------------------- */
/* compiling                                                                 */

static const char *const QUERY_ERRORS[] = {"", "syntax", "node type", "field", "capture",
                                           "structure", "language"};

void runner_free(Runner *r) {
    if (r == NULL) return;
    if (r->query != NULL) ts_query_delete(r->query);
    PyMem_RawFree(r->steps);
    PyMem_RawFree(r->first_step);
    PyMem_RawFree(r->root_start);
    PyMem_RawFree(r->roots);
    PyMem_RawFree(r->pattern_capture_start);
    PyMem_RawFree(r->pattern_captures);
    PyMem_RawFree(r->lone);
    PyMem_RawFree(r->text);
    if (r->capture_names != NULL) {
        for (uint32_t i = 0; i < r->capture_count; i++) PyMem_RawFree(r->capture_names[i]);
    }
    PyMem_RawFree(r->capture_names);
    PyMem_RawFree(r->capture_name_lengths);
    PyMem_RawFree(r);
}

/* each pattern's captures in step order, each once; whether a match holds at most one node
   per capture (no capture under a `*` or `+` quantifier) */
static bool pattern_captures(Runner *r, bool quantifiers) {
    r->pattern_capture_start = PyMem_RawCalloc(r->pattern_count + 1, sizeof(uint16_t));
    r->pattern_captures = PyMem_RawCalloc(r->step_count * RUNNER_STEP_CAPTURES + 1,
                                          sizeof(uint16_t));
    if (r->pattern_capture_start == NULL || r->pattern_captures == NULL) return false;
    if (quantifiers) r->tuple_shaped = true;
    uint16_t n = 0;
    for (uint32_t p = 0; p < r->pattern_count; p++) {
        r->pattern_capture_start[p] = n;
        uint16_t start = n;
        for (uint32_t s = r->first_step[p]; r->steps[s].depth != RUNNER_DONE; s++) {
            for (unsigned k = 0; k < RUNNER_STEP_CAPTURES; k++) {
                uint16_t id = r->steps[s].captures[k];
                if (id == RUNNER_NONE) break;
                bool seen = false; /* (alternatives put one capture on several steps) */
                for (uint16_t j = start; j < n; j++) seen = seen || r->pattern_captures[j] == id;
                if (!seen) r->pattern_captures[n++] = id;
            }
        }
        uint32_t quantified = 0;
        /* (a runner made from exported steps was given tuple_shaped) */
        for (uint16_t j = start; quantifiers && j < n; j++) {
            TSQuantifier q =
                ts_query_capture_quantifier_for_id(r->query, p, r->pattern_captures[j]);
            if (q != TSQuantifierOne && q != TSQuantifierZeroOrOne) quantified++;
        }
        if (quantified) r->tuple_shaped = false;
        if (n - start > r->max_pattern_captures) r->max_pattern_captures = n - start;
    }
    r->pattern_capture_start[r->pattern_count] = n;
    return true;
}

static bool lone_patterns(Runner *r) {
    r->lone = PyMem_RawCalloc(r->pattern_count ? r->pattern_count : 1, sizeof(bool));
    if (r->lone == NULL) return false;
    for (uint32_t p = 0; p < r->pattern_count; p++) {
        const RunnerStep *root = &r->steps[r->first_step[p]];
        r->lone[p] = root->symbol != 0 && root->field == 0 && root->depth == 0 &&
                     root->alternative == RUNNER_NONE && !root->is_dead_end &&
                     root[1].depth == RUNNER_DONE && root[1].alternative == RUNNER_NONE;
    }
    return true;
}

/* by raw symbol, the patterns whose root step has its public symbol; slot symbol_count is
   ERROR's (ts_builtin_sym_error is outside the language's symbols: `(ERROR) @error`) */
static bool root_table(Runner *r) {
    uint32_t count = ts_language_symbol_count(r->language);
    r->symbol_count = count;
    r->root_start = PyMem_RawCalloc(count + 2, sizeof(uint32_t));
    if (r->root_start == NULL) return false;
    uint32_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        total = 0;
        for (uint32_t s = 0; s <= count; s++) {
            TSSymbol public_symbol = s == count ? (TSSymbol)-1 /* ts_builtin_sym_error */
                                                : ts_language_public_symbol(r->language, (TSSymbol)s);
            if (pass == 0) r->root_start[s] = total;
            for (uint32_t p = 0; p < r->pattern_count; p++) {
                if (r->steps[r->first_step[p]].symbol != public_symbol) continue;
                if (pass == 1) r->roots[total] = (uint16_t)p;
                total++;
            }
        }
        if (pass == 0) {
            r->root_start[count + 1] = total;
            r->roots = PyMem_RawCalloc(total ? total : 1, sizeof(uint16_t));
            if (r->roots == NULL) return false;
        }
    }
    return true;
}

Runner *runner_new(const TSLanguage *language, const char *text, uint32_t length) {
    uint32_t offset = 0;
    TSQueryError error = TSQueryErrorNone;
    TSQuery *query = ts_query_new(language, text, length, &offset, &error);
    if (query == NULL) {
        unsigned kind = (unsigned)error < sizeof(QUERY_ERRORS) / sizeof(QUERY_ERRORS[0])
                            ? (unsigned)error
                            : 1;
        PyErr_Format(PyExc_ValueError, "invalid query: %s error at byte %u", QUERY_ERRORS[kind],
                     offset);
        return NULL;
    }
    Runner *r = PyMem_RawCalloc(1, sizeof(Runner));
    if (r == NULL) {
        ts_query_delete(query);
        PyErr_NoMemory();
        return NULL;
    }
    r->query = query;
    r->language = language;
    r->text = PyMem_RawMalloc(length ? length : 1);
    if (r->text == NULL) {
        runner_free(r);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(r->text, text, length);
    r->text_length = length;
    r->pattern_count = ts_query_pattern_count(query);
    r->capture_count = ts_query_capture_count(query);
    if (r->pattern_count >= RUNNER_NONE || r->capture_count >= RUNNER_NONE) {
        runner_free(r);
        PyErr_SetString(PyExc_ValueError, "a query of more than 65534 patterns or captures");
        return NULL;
    }
    if (!runner_export_steps(query, &r->steps, &r->step_count, &r->first_step) ||
        !runner_finish(r, true)) {
        runner_free(r);
        PyErr_NoMemory();
        return NULL;
    }
    return r;
}

bool runner_finish(Runner *r, bool quantifiers) {
    if (!pattern_captures(r, quantifiers) || !root_table(r) || !lone_patterns(r)) return false;
    r->walkable = r->max_pattern_captures <= WALK_MAX_CAPTURES;
    for (uint32_t s = 0; s < r->step_count && r->walkable; s++) {
        if (r->steps[s].unsupported) r->walkable = false;
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* match storage                                                             */

int runner_grow(void **items, size_t *cap, size_t size) {
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

static int begin_match(RunnerMatches *out, uint16_t pattern) {
    if (out->match_count == out->match_cap &&
        runner_grow((void **)&out->matches, &out->match_cap, sizeof(RunnerMatch)) < 0)
        return -1;
    out->matches[out->match_count++] =
        (RunnerMatch){.capture_start = (uint32_t)out->cap_count, .pattern = pattern};
    return 0;
}

/* appends a capture to the last match begun */
static int add_capture(RunnerMatches *out, TSNode node, uint16_t id) {
    if (out->cap_count == out->cap_cap &&
        runner_grow((void **)&out->caps, &out->cap_cap, sizeof(RunnerCapture)) < 0)
        return -1;
    out->caps[out->cap_count++] = (RunnerCapture){node, id};
    out->matches[out->match_count - 1].capture_count++;
    return 0;
}

void runner_matches_free(RunnerMatches *m) {
    PyMem_Free(m->matches);
    PyMem_Free(m->caps);
    m->matches = NULL;
    m->caps = NULL;
    m->match_count = m->match_cap = m->cap_count = m->cap_cap = 0;
}

/* ------------------------------------------------------------------------- */
/* running                                                                   */

static int run_cursor(const Runner *r, TSNode root, RunnerMatches *out) {
    /* (made from exported steps: compiled at the first file the walk cannot follow) */
    TSQuery *query = runner_query((Runner *)r);
    if (query == NULL) return -1;
    TSQueryCursor *cursor = ts_query_cursor_new();
    if (cursor == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    ts_query_cursor_exec(cursor, query, root);
    TSQueryMatch match;
    int rc = 0;
    while (rc == 0 && ts_query_cursor_next_match(cursor, &match)) {
        rc = begin_match(out, match.pattern_index);
        for (uint16_t i = 0; rc == 0 && i < match.capture_count; i++) {
            rc = add_capture(out, match.captures[i].node, (uint16_t)match.captures[i].index);
        }
    }
    ts_query_cursor_delete(cursor);
    return rc;
}

int runner_run(const Runner *r, TSNode root, bool find_errors, bool force_cursor,
               RunnerMatches *out) {
    find_errors = find_errors && ts_node_has_error(root);
    int rc = r->walkable && !force_cursor ? walk_run(r, root, find_errors, out) : 1;
    if (rc > 0) {
        /* the walk stopped where it could not follow the cursor (or was not asked): the
           cursor finds every match, and a walk that matches nothing finds the errors */
        out->match_count = out->cap_count = 0;
        out->error_row = UINT32_MAX;
        rc = run_cursor(r, root, out);
        if (rc == 0 && find_errors) rc = walk_run(NULL, root, true, out);
    }
    return rc;
}

int runner_error_row(TSNode root, uint32_t *row) {
    RunnerMatches out = {0};
    out.error_row = UINT32_MAX;
    int rc = ts_node_has_error(root) ? walk_run(NULL, root, true, &out) : 0;
    *row = out.error_row;
    return rc;
}
