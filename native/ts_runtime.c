/*
 * The vendored tree-sitter runtime as one translation unit (its own lib.c), plus the
 * functions that need its private parts: runner_export_steps copies a TSQuery's steps into
 * the runner's own step table (runner.h), so that runner.c's walk matches with the very
 * steps query.c compiled from the .scm text (no pattern is written down twice) and knows
 * which of them use a feature the walk does not implement; runner_children lists a node's
 * children with node.c's own child iterator.
 */

#include "lib.c"

#include "runner.h"

bool runner_export_steps(const TSQuery *query, RunnerStep **steps_out, uint32_t *step_count,
                         uint16_t **first_step_out) {
    uint32_t n = query->steps.size;
    uint32_t patterns = query->patterns.size;
    RunnerStep *steps = PyMem_RawCalloc(n ? n : 1, sizeof(RunnerStep));
    uint16_t *first = PyMem_RawCalloc(patterns ? patterns : 1, sizeof(uint16_t));
    if (steps == NULL || first == NULL) {
        PyMem_RawFree(steps);
        PyMem_RawFree(first);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const QueryStep *s = array_get(&query->steps, i);
        RunnerStep *r = &steps[i];
        r->symbol = s->symbol;
        r->field = s->field;
        for (unsigned k = 0; k < MAX_STEP_CAPTURE_COUNT && k < RUNNER_STEP_CAPTURES; k++) {
            r->captures[k] = s->capture_ids[k];
        }
        r->depth = s->depth;
        r->alternative = s->alternative_index;
        r->is_dead_end = s->is_dead_end;
        r->is_named = s->is_named;
        r->is_immediate = s->is_immediate;
        r->contains_captures = s->contains_captures;
        r->fallible = s->depth != PATTERN_DONE_MARKER && i + 1 < n &&
                      ts_query__step_is_fallible(query, (uint16_t)i);
        /* what the walk does not implement: quantifiers (pass-through steps, zero-skips,
           loops back), supertypes, negated fields, the `.` anchor after a last child,
           MISSING patterns; an alternation's branches (a forward alternative, dead ends)
           it follows as query.c does */
        r->unsupported = s->is_pass_through || s->alternative_is_skip ||
                         (s->alternative_index != NONE && s->alternative_index <= i) ||
                         s->supertype_symbol != 0 || s->negated_field_list_id != 0 ||
                         s->is_last_child || s->is_missing;
    }
    for (uint32_t p = 0; p < patterns; p++) {
        const QueryPattern *pattern = array_get(&query->patterns, p);
        first[p] = (uint16_t)pattern->steps.offset;
        /* predicates are the caller's to evaluate, and a non-local pattern (several
           top-level nodes) starts states where the walk does not */
        /* (nor an alternation at a pattern's root: query.c starts such a pattern at each
           branch, the walk's root table at its first step only) */
        if (pattern->predicate_steps.length > 0 || pattern->is_non_local ||
            steps[pattern->steps.offset].depth != 0 || steps[pattern->steps.offset].symbol == 0 ||
            steps[pattern->steps.offset].alternative != NONE)
            steps[pattern->steps.offset].unsupported = true;
    }
    *steps_out = steps;
    *step_count = n;
    *first_step_out = first;
    return true;
}

/* collect_children's recursion: the children of `node` from the n-th on */
static uint32_t collect_children(TSNode node, TSNode *out, uint32_t cap, uint32_t n) {
    TSNode child;
    NodeChildIterator iterator = ts_node_iterate_children(&node);
    while (ts_node_child_iterator_next(&iterator, &child)) {
        if (ts_node__is_relevant(child, true)) {
            if (n < cap) out[n] = child;
            n++;
        } else if (ts_node__relevant_child_count(child, true) > 0) {
            n = collect_children(child, out, cap, n); /* a hidden node's, in its place */
        }
    }
    return n;
}

uint32_t runner_children(TSNode node, TSNode *out, uint32_t cap) {
    return collect_children(node, out, cap, 0);
}
