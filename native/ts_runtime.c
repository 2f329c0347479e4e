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

/* The children of one subtree as node.c's NodeChildIterator steps through them, read from the
 * Subtree structs without a TSNode per child: where child i starts (after its padding) and
 * its alias (non-extra children take their production's alias sequence in turn). */
typedef struct {
    const Subtree *children;
    uint32_t count, index, structural;
    const TSSymbol *aliases;
    Length position;
} Kids;

static inline bool kids_of(TSNode node, Kids *k) {
    Subtree tree = ts_node__subtree(node);
    if (ts_subtree_child_count(tree) == 0) return false;
    k->children = ts_subtree_children(tree);
    k->count = tree.ptr->child_count;
    k->index = k->structural = 0;
    k->aliases = ts_language_alias_sequence(node.tree->language, tree.ptr->production_id);
    k->position = (Length){ts_node_start_byte(node), ts_node_start_point(node)};
    return true;
}

/* the next child's subtree, position and alias (its TSNode's parts); false past the last */
static inline bool kids_next(Kids *k, const Subtree **child, TSSymbol *alias) {
    if (k->index == k->count) return false;
    const Subtree *c = &k->children[k->index];
    *alias = 0;
    if (!ts_subtree_extra(*c)) {
        if (k->aliases) *alias = k->aliases[k->structural];
        k->structural++;
    }
    if (k->index > 0) k->position = length_add(k->position, ts_subtree_padding(*c));
    *child = c;
    return true;
}

static inline void kids_skip(Kids *k, const Subtree *child) {
    k->position = length_add(k->position, ts_subtree_size(*child));
    k->index++;
}

static inline TSNode kid_node(const TSTree *tree, const Kids *k, const Subtree *child,
                              TSSymbol alias) {
    return (TSNode){{k->position.bytes, k->position.extent.row, k->position.extent.column, alias},
                    child, tree};
}

/* ts_node__relevant_child_count(child, true): a hidden child's visible children */
static inline uint32_t visible_children(Subtree child) {
    return ts_subtree_child_count(child) > 0 ? child.ptr->visible_child_count : 0;
}

/* collect_children's recursion: the children of `node` from the n-th on */
static uint32_t collect_children(TSNode node, TSNode *out, uint32_t cap, uint32_t n) {
    Kids k;
    if (!kids_of(node, &k)) return n;
    const Subtree *child;
    TSSymbol alias;
    while (kids_next(&k, &child, &alias)) {
        if (ts_subtree_visible(*child) || alias) {
            if (n < cap) out[n] = kid_node(node.tree, &k, child, alias);
            n++;
        } else if (visible_children(*child) > 0) {
            /* a hidden node's, in its place */
            n = collect_children(kid_node(node.tree, &k, child, alias), out, cap, n);
        }
        kids_skip(&k, child);
    }
    return n;
}

uint32_t runner_children(TSNode node, TSNode *out, uint32_t cap) {
    return collect_children(node, out, cap, 0);
}

/* ts_node_child(node, 0): the first visible child, a hidden child's own in its place */
static TSNode first_child(TSNode node) {
    Kids k;
    const Subtree *child;
    TSSymbol alias;
    bool descend = true;
    while (descend) {
        descend = false;
        if (!kids_of(node, &k)) break;
        while (kids_next(&k, &child, &alias)) {
            if (ts_subtree_visible(*child) || alias) return kid_node(node.tree, &k, child, alias);
            if (visible_children(*child) > 0) {
                node = kid_node(node.tree, &k, child, alias);
                descend = true;
                break;
            }
            kids_skip(&k, child);
        }
    }
    return ts_node__null();
}

TSNode runner_field(TSNode node, TSFieldId field_id) {
    Subtree tree = ts_node__subtree(node);
    if (!field_id || ts_subtree_child_count(tree) == 0 || tree.ptr->visible_child_count == 0)
        return ts_node__null();
    const TSFieldMapEntry *map, *end;
    ts_language_field_map(node.tree->language, tree.ptr->production_id, &map, &end);
    while (map < end && map->field_id < field_id) map++;
    if (map == end || map->field_id != field_id) return ts_node__null();
    /* a field held by several children, or inherited from a hidden one: the runtime's walk */
    if (map->inherited || (map + 1 < end && map[1].field_id == field_id))
        return ts_node_child_by_field_id(node, field_id);
    Kids k;
    kids_of(node, &k);
    const Subtree *child;
    TSSymbol alias;
    while (kids_next(&k, &child, &alias)) {
        if (!ts_subtree_extra(*child) && k.structural - 1 == map->child_index) {
            TSNode found = kid_node(node.tree, &k, child, alias);
            if (ts_subtree_visible(*child) || alias) return found;
            /* a hidden node: its first visible child, if any */
            return visible_children(*child) > 0 ? first_child(found) : ts_node__null();
        }
        kids_skip(&k, child);
    }
    return ts_node__null();
}
