/*
 * The walk of runner.c: the matches of a compiled query over a tree, as query.c's cursor
 * finds them, by query.c's matching algorithm (ts_query_cursor__advance) run over the very
 * steps ts_query_new compiled (runner_export_steps), for the queries whose steps use only
 * node symbols, wildcards, fields, captures and the `.` anchor before a node (no
 * alternatives, quantifiers, predicates, negated fields or supertypes).
 *
 * Why the walk: the cursor asks for the full status of every visible node (its field, its
 * later siblings, its parent and their ranges) through a TSTreeCursor, whether or not some
 * state needs it. Over Django's 2,900 files that took 0.93 cpu-s for the Python
 * queries, against ~0.3 s for the walk, which reads the runtime's Subtree structs
 * directly, looks a node's patterns up by symbol in a table, and computes the status only
 * where a state has a child step to try. The walk keeps query.c's states, enter and leave
 * events and depths, so states start, split, fail, are deduplicated (longest match), are
 * deferred and finish where query.c's do, and matches come out in the order query.c
 * pushes them to its finished states (which next_match yields first in, first out). Where
 * it cannot follow query.c (a depth beyond query.c's 16-bit start depths) the cursor runs
 * instead.
 *
 * The walk also finds what QueryCursor.captures of `(ERROR) @e (MISSING) @m` finds (the
 * Python extractor's _first_error): the smallest start row of a visible ERROR or MISSING node,
 * leaving out those that end at byte 0 (a MISSING node at the very start of the file:
 * ts_query_cursor_next_capture skips a capture that ends where its range starts).
 */

#include "runner.h"

/* runtime internals (hence the exact version check): the cursor status's field maps and
   symbol metadata, and the Subtree layout for the walk */
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

enum { MAX_STATE_CAPTURES = WALK_MAX_CAPTURES };

/* ------------------------------------------------------------------------- */
/* the walk                                                                  */

/* A partial match: query.c's QueryState with its capture list. */
typedef struct {
    TSNode nodes[MAX_STATE_CAPTURES];
    uint16_t ids[MAX_STATE_CAPTURES];
    uint16_t capture_count;
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
    Length position;             /* where children[index] starts (after its padding) */
    uint32_t current;            /* the child being visited, and its structural index (the */
    uint32_t current_structural; /* next non-extra child's for an extra one)          */
    uint32_t depth;              /* query.c's depth of a visible child here */
    bool owner_visible;          /* leaving the subtree whose children these are is an event */
    TSSymbol owner_alias;        /* the owner's alias (0: none) and where it starts: with */
    Length owner_position;       /* the parent level's current child, the owner's TSNode */
} Level;

typedef struct {
    const Runner *r; /* (NULL when only looking for errors) */
    RunnerMatches *out;
    TSNode root; /* the start node */
    State *states;
    size_t state_count, state_cap;
    Level *levels;
    size_t level_count, level_cap;
    /* an upper bound of the depths the live states try their next step at (start depth +
       step depth), and whether a state may wait finished (deferred): set by enter, kept by
       leave (which only removes states). Entering a node deeper than `reach` that roots no
       pattern, with no finished state waiting, changes nothing (enter's early return): the
       walk skips it. Most visible nodes (names, punctuation, inside a call's callee or an
       assignment's left side) are such. */
    uint32_t reach;
    bool done_waiting;
    bool find_errors;
    uint32_t error_row; /* UINT32_MAX: none found */
} Walk;

static int insert_state(Walk *w, size_t index, const State *state) {
    if (w->state_count == w->state_cap &&
        runner_grow((void **)&w->states, &w->state_cap, sizeof(State)) < 0)
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

/* language.c's ts_language_symbol_metadata and node.c's ts_node_symbol and
 * ts_node_is_named, inline (the runtime's own are calls into another file) */
static inline TSSymbolMetadata symbol_metadata(const TSLanguage *language, TSSymbol symbol) {
    if (symbol == ts_builtin_sym_error) return (TSSymbolMetadata){.visible = true, .named = true};
    if (symbol == ts_builtin_sym_error_repeat) return (TSSymbolMetadata){0};
    return language->symbol_metadata[symbol];
}

static inline TSSymbol node_symbol(const TSLanguage *language, TSNode node) {
    TSSymbol symbol = (TSSymbol)node.context[3];
    if (!symbol) symbol = ts_subtree_symbol(*(const Subtree *)node.id);
    return symbol == ts_builtin_sym_error ? symbol : language->public_symbol_map[symbol];
}

static inline bool node_is_named(const TSLanguage *language, TSNode node) {
    TSSymbol alias = (TSSymbol)node.context[3];
    return alias ? symbol_metadata(language, alias).named
                 : ts_subtree_named(*(const Subtree *)node.id);
}

/* ts_tree_cursor_current_status for the child being visited at the top level (its field
 * and its later siblings; the walk runs no supertype steps). */
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
        if (l != w->level_count - 1 && symbol_metadata(language, entry_symbol).visible)
            break;
        if (!st.has_later_named_siblings) {
            uint32_t structural_index = level->current_structural;
            if (!ts_subtree_extra(*entry)) structural_index++;
            for (uint32_t j = level->current + 1; j < level->count; j++) {
                Subtree sibling = level->children[j];
                TSSymbol symbol = SUBTREE_SYMBOL(sibling, structural_index);
                TSSymbolMetadata metadata = symbol_metadata(language, symbol);
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

/* ts_node_new (node.c's is not inlined) */
static inline TSNode make_node(const TSTree *tree, const Subtree *subtree, Length position,
                               TSSymbol alias) {
    return (TSNode){{position.bytes, position.extent.row, position.extent.column, alias},
                    subtree,
                    tree};
}

/* The parent of the node being entered (ts_node_parent's answer): the owner of the
 * innermost level whose owner is visible (the start node for the first level). */
static TSNode entered_parent(const Walk *w) {
    if (w->level_count == 0) return (TSNode){0}; /* (the start node: not known) */
    for (size_t l = w->level_count; l-- > 1;) {
        const Level *level = &w->levels[l];
        if (!level->owner_visible) continue;
        const Level *up = &w->levels[l - 1];
        return make_node(w->root.tree, &up->children[up->current], level->owner_position,
                         level->owner_alias);
    }
    return w->root;
}

static int finish(Walk *w, const State *state, TSNode parent) {
    RunnerMatches *out = w->out;
    if (out->match_count == out->match_cap &&
        runner_grow((void **)&out->matches, &out->match_cap, sizeof(RunnerMatch)) < 0)
        return -1;
    if (out->cap_count + MAX_STATE_CAPTURES > out->cap_cap &&
        runner_grow((void **)&out->caps, &out->cap_cap, sizeof(RunnerCapture)) < 0)
        return -1;
    out->matches[out->match_count++] = (RunnerMatch){(uint32_t)out->cap_count, state->pattern,
                                                     state->capture_count, parent};
    for (uint16_t i = 0; i < state->capture_count; i++) {
        out->caps[out->cap_count++] = (RunnerCapture){state->nodes[i], state->ids[i]};
    }
    return 0;
}

/* ts_query_cursor__add_state: states stay ordered by start depth, then pattern. Where a
 * new state of `pattern` at `depth` goes (SIZE_MAX: there is one already). */
static size_t state_slot(const Walk *w, uint16_t pattern, uint32_t depth) {
    uint16_t first = w->r->first_step[pattern];
    size_t index = w->state_count;
    while (index > 0) {
        const State *prev = &w->states[index - 1];
        if (prev->start_depth < depth) break;
        if (prev->start_depth == depth) {
            if (prev->pattern == pattern && prev->step == first) return SIZE_MAX;
            if (prev->pattern <= pattern) break;
        }
        index--;
    }
    return index;
}

static int add_state(Walk *w, uint16_t pattern, uint32_t depth) {
    size_t index = state_slot(w, pattern, depth);
    if (index == SIZE_MAX) return 0;
    State state = {.capture_count = 0,
                   .step = w->r->first_step[pattern],
                   .pattern = pattern,
                   .start_depth = depth,
                   .seeking_immediate_match = true,
                   .has_in_progress_alternatives = false};
    return insert_state(w, index, &state);
}

/* The state of a lone pattern (Runner.lone) rooted at `node` once enter has tried it there:
 * its root step matched (a new state seeks an immediate match: no status, no copy), the
 * captures taken, at the end of the pattern. */
static State lone_state(const Runner *r, uint16_t pattern, TSNode node, uint32_t depth) {
    uint16_t first = r->first_step[pattern];
    const RunnerStep *step = &r->steps[first];
    State state = {.capture_count = 0,
                   .step = (uint16_t)(first + 1),
                   .pattern = pattern,
                   .start_depth = depth,
                   .seeking_immediate_match = false,
                   .has_in_progress_alternatives = false};
    for (unsigned k = 0; k < RUNNER_STEP_CAPTURES && step->captures[k] != RUNNER_NONE; k++) {
        state.nodes[state.capture_count] = node;
        state.ids[state.capture_count] = step->captures[k];
        state.capture_count++;
    }
    return state;
}

/* Whether states[j] is the only state of its pattern begun at its depth (its group for the
 * longest-match pass: the states are ordered by start depth, then pattern). */
static inline bool alone(const Walk *w, size_t j) {
    const State *s = &w->states[j];
    if (j > 0 && w->states[j - 1].start_depth == s->start_depth &&
        w->states[j - 1].pattern == s->pattern)
        return false;
    return !(j + 1 < w->state_count && w->states[j + 1].start_depth == s->start_depth &&
             w->states[j + 1].pattern == s->pattern);
}

/* ts_query_cursor__state_precedes */
static bool state_precedes(const State *a, const State *b) {
    if (a->start_depth != b->start_depth) return a->start_depth < b->start_depth;
    if (a->pattern != b->pattern) return a->pattern < b->pattern;
    if ((a->capture_count == 0) != (b->capture_count == 0)) return a->capture_count == 0;
    if (a->capture_count == 0) return false;
    return ts_node_start_byte(a->nodes[0]) < ts_node_start_byte(b->nodes[0]);
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
                if (left->nodes[i].id == right->nodes[j].id && left->ids[i] == right->ids[j]) {
                    i++;
                    j++;
                } else {
                    switch (ts_query_cursor__compare_nodes(left->nodes[i], right->nodes[j])) {
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

/* Walk.reach and Walk.done_waiting of the states there are now. */
static void set_bounds(Walk *w) {
    const RunnerStep *steps = w->r->steps;
    uint32_t reach = 0;
    bool done = false;
    for (size_t i = 0; i < w->state_count; i++) {
        const State *state = &w->states[i];
        uint16_t step_depth = steps[state->step].depth;
        if (step_depth == RUNNER_DONE) {
            done = true;
        } else if (state->start_depth + step_depth > reach) {
            reach = state->start_depth + step_depth;
        }
    }
    w->reach = reach;
    w->done_waiting = done;
}

/*
 * The query cursor enters the visible node `node` at `depth` (ts_query_cursor__advance's
 * "Enter a new node" branch): new states for the patterns rooted at its symbol
 * (roots[0 .. root_count)), every state whose next step is at this depth tries the node
 * (and splits when a later sibling could match the same step), then the longest-match
 * pass, and the finished states are emitted in the order of the states array.
 */
static int enter(Walk *w, TSNode node, const uint16_t *roots, uint32_t root_count,
                 uint32_t depth) {
    const Runner *r = w->r;
    /* A lone pattern's new state would be the last one (every other state began higher up,
       or is finished: a state begun at a sibling is gone once the sibling is left unless it
       is at its end) and would match at once without touching the others: it is made after
       the others have tried the node (`lone`), and where nothing else happens its match is
       emitted without going through the states. */
    bool lone = root_count == 1 && r->lone[roots[0]];
    for (uint32_t i = 0; i < root_count && !lone; i++) {
        if (add_state(w, roots[i], depth) < 0) return -1;
    }

    bool touched = false, any_done = false, have_node = false, have_status = false;
    bool matched = false; /* a state took a step (or was copied) */
    Status status = {0};
    TSSymbol symbol = 0;
    bool is_named = false, is_error = false;
    for (size_t j = 0, copy_count = 0; j < w->state_count; j += 1 + copy_count) {
        State *state = &w->states[j];
        const RunnerStep *step = &r->steps[state->step];
        state->has_in_progress_alternatives = false;
        copy_count = 0;
        if (step->depth == RUNNER_DONE) {
            any_done = true;
            continue;
        }
        if (state->start_depth + step->depth != depth) continue;
        touched = true;
        if (!have_node) {
            symbol = node_symbol(r->language, node);
            is_named = node_is_named(r->language, node);
            is_error = symbol == ts_builtin_sym_error;
            have_node = true;
        }
        bool does_match = step->symbol == 0 ? !is_error && (is_named || !step->is_named)
                                            : symbol == step->symbol;
        bool anchored = (step->is_immediate && is_named) || state->seeking_immediate_match;
        if (!does_match && !anchored && !step->field && alone(w, j)) {
            /* Not this node: the state stays for a later sibling, or fails when there is
               none. Kept either way, without the status that tells which: one that fails
               here is left at its parent instead (leave), and until then it only waits,
               above the nodes entered (deeper ones), alone among its pattern's states begun
               at its depth (so the longest-match pass compares it with none, and none can
               join it: they begin at its root, or are copies of it made where it matches).
               (Not for a field's step: the status's "no later sibling with this field" is
               query.c's guess, which a later sibling can belie.) */
            continue;
        }
        /* the status is asked only where it decides something (not at a pattern's root) */
        if ((!anchored || step->field) && !have_status) {
            status = current_status(w, r->language);
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
        matched = true;
        /* a later sibling could match this step too: keep a copy that skips this node */
        if (later_sibling_can_match && (step->contains_captures || step->fallible)) {
            State copy = *state;
            if (insert_state(w, j + 1, &copy) < 0) return -1;
            state = &w->states[j];
            copy_count++;
        }
        if (step->captures[0] != RUNNER_NONE) {
            /* (at most MAX_STATE_CAPTURES per pattern: runner_new checks) */
            for (unsigned k = 0; k < RUNNER_STEP_CAPTURES && step->captures[k] != RUNNER_NONE;
                 k++) {
                state->nodes[state->capture_count] = node;
                state->ids[state->capture_count] = step->captures[k];
                state->capture_count++;
            }
        }
        state->step++;
        state->seeking_immediate_match =
            step->symbol == 0 && !step->is_named && r->steps[state->step].is_immediate;
        /* a state at the first step of an alternation's branch is copied for each later
           branch (right after it, as query.c's copy_state places them), and one at a dead
           end goes on after the alternation; the copies try the next node, not this one */
        for (size_t k = j, end = j + 1; k < end; k++) {
            const RunnerStep *next = &r->steps[w->states[k].step];
            if (next->alternative == RUNNER_NONE) continue;
            if (next->is_dead_end) {
                w->states[k].step = next->alternative;
                k--; /* (wraps around at 0 before the k++, as query.c's unsigned k does) */
                continue;
            }
            State copy = w->states[k];
            copy.step = next->alternative;
            if (insert_state(w, k + 1, &copy) < 0) return -1;
            end++;
            copy_count++;
        }
    }
    if (lone) {
        State state = lone_state(r, roots[0], node, depth);
        if (!matched && !any_done) {
            /* the passes below would only finish it */
            if (finish(w, &state, entered_parent(w)) < 0) return -1;
            if (touched) set_bounds(w);
            return 0;
        }
        size_t index = state_slot(w, roots[0], depth);
        if (index != SIZE_MAX && insert_state(w, index, &state) < 0) return -1;
        touched = any_done = true;
    }
    if (!touched && !any_done) return 0; /* the passes below would change nothing */
    /* (the bounds are computed below, after the passes; here they still hold: the loop above
       only stepped states that were tried at this depth, and then `touched` is set) */
    if (!matched && !any_done) {
        /* No state took a step and none is at its end: the states are as the last passes
           left them (sorted, the longest matches kept) but for those that failed here, and
           the passes would change nothing. */
        set_bounds(w);
        return 0;
    }

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
        if (!did_remove && r->steps[state->step].depth == RUNNER_DONE &&
            !state->has_in_progress_alternatives) {
            State done = *state;
            erase_state(w, j);
            j--;
            /* (a lone pattern's state finishes where it began: at the node entered) */
            TSNode parent = r->lone[done.pattern] ? entered_parent(w) : (TSNode){0};
            if (finish(w, &done, parent) < 0) return -1;
        }
    }
    set_bounds(w);
    return 0;
}

/* The query cursor leaves a visible node at `depth`: deferred states whose match lay inside
 * it finish, states that needed more inside it fail. */
static int leave(Walk *w, uint32_t depth) {
    const Runner *r = w->r;
    size_t deleted = 0, n = w->state_count;
    for (size_t i = 0; i < n; i++) {
        State *state = &w->states[i];
        uint16_t step_depth = r->steps[state->step].depth;
        if (step_depth == RUNNER_DONE && (state->start_depth > depth || depth == 0)) {
            if (finish(w, state, (TSNode){0}) < 0) return -1;
            deleted++;
        } else if (step_depth != RUNNER_DONE && state->start_depth + step_depth > depth) {
            deleted++;
        } else if (deleted > 0) {
            w->states[i - deleted] = *state;
        }
    }
    w->state_count -= deleted;
    if (deleted > 0 && w->state_count == 0) w->done_waiting = false;
    return 0;
}

static inline int push_level(Walk *w, Subtree owner, const TSLanguage *language, Length position,
                      uint32_t depth, bool owner_visible, TSSymbol owner_alias) {
    if (w->level_count == w->level_cap &&
        runner_grow((void **)&w->levels, &w->level_cap, sizeof(Level)) < 0)
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
        .owner_alias = owner_alias,
        .owner_position = position,
    };
    return 0;
}

/* Whether leaving a node at `depth` can change the states: one tries a step below it, or one
 * is finished (most visible nodes are left with neither). */
static inline bool leave_matters(const Walk *w, uint32_t depth) {
    return w->state_count > 0 && (depth < w->reach || w->done_waiting);
}

/* query.c keeps start depths in 16 bits; deeper trees are left to its cursor */
#define MAX_DEPTH 0xFFF0u

/*
 * Every subtree under the start node in pre-order, hidden ones included (the pre-order of
 * the visible nodes, which the query cursor follows, is the induced order), tracking
 * positions and aliases as the tree cursor does, and the query cursor's depth (the number
 * of visible ancestors) and its enter and leave events of the visible nodes. A visible
 * node's symbol is the one the query sees (the alias if any, mapped to its public symbol).
 * Returns 0, -1 with an exception set, or 1 when the walk cannot reproduce the cursor.
 */
static inline int walk_tree(Walk *w, TSNode root, const bool matching) {
    const Runner *r = w->r;
    const TSLanguage *language = ts_node_language(root);
    const TSTree *tree = root.tree;
    Subtree top = *(const Subtree *)root.id;
    TSSymbol root_symbol = ts_node_symbol(root);
    if (w->find_errors && (root_symbol == ts_builtin_sym_error || ts_subtree_missing(top)) &&
        ts_node_end_byte(root) > 0)
        w->error_row = ts_node_start_point(root).row;
    if (matching) {
        /* (the table is by raw symbol; the start node's symbol is public already) */
        uint32_t slot = root_slot(r, root_symbol);
        uint32_t from = slot != UINT32_MAX ? r->root_start[slot] : 0;
        uint32_t to = slot != UINT32_MAX ? r->root_start[slot + 1] : 0;
        if (enter(w, root, r->roots + from, to - from, 0) < 0) return -1;
    }
    if (ts_subtree_child_count(top) == 0) return matching ? leave(w, 0) : 0;
    if (push_level(w, top, language,
                   (Length){ts_node_start_byte(root), ts_node_start_point(root)}, 1, true,
                   0) < 0)
        return -1;
    while (w->level_count > 0) {
        Level *level = &w->levels[w->level_count - 1];
        if (level->index == level->count) {
            bool owner_visible = level->owner_visible;
            uint32_t owner_depth = level->depth - 1;
            w->level_count--;
            if (matching && owner_visible && leave_matters(w, owner_depth) &&
                leave(w, owner_depth) < 0)
                return -1;
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
            if (matching) {
                uint32_t from = 0, to = 0, slot = root_slot(r, symbol);
                if (slot != UINT32_MAX) {
                    from = r->root_start[slot];
                    to = r->root_start[slot + 1];
                }
                if ((to > from || w->state_count > 0) && depth >= MAX_DEPTH) return 1;
                if (to > from ||
                    (w->state_count > 0 && (depth <= w->reach || w->done_waiting))) {
                    if (enter(w, make_node(tree, child, position, alias), r->roots + from,
                              to - from, depth) < 0)
                        return -1;
                }
            }
        }
        if (ts_subtree_child_count(*child) > 0) {
            /* (`level` is stale once the stack grows) */
            if (push_level(w, *child, language, position, visible ? depth + 1 : depth,
                           visible, alias) < 0)
                return -1;
        } else if (matching && visible && leave_matters(w, depth)) {
            if (leave(w, depth) < 0) return -1;
        }
    }
    /* the query cursor halts after leaving the start node: what is left never finishes */
    w->state_count = 0;
    return 0;
}

int walk_run(const Runner *r, TSNode root, bool find_errors, RunnerMatches *out) {
    Walk w = {.r = r,
              .out = out,
              .root = root,
              .find_errors = find_errors,
              .error_row = UINT32_MAX};
    /* the walk that matches (and finds the errors when asked), or the one that only finds
       the errors: the compiler drops from each loop what it does not do */
    int rc = r != NULL ? walk_tree(&w, root, true) : walk_tree(&w, root, false);
    out->error_row = w.error_row;
    PyMem_Free(w.states);
    PyMem_Free(w.levels);
    return rc;
}

