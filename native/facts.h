/*
 * The fact engine's internal interface (facts.c, facts_type.c, facts_defs.c, facts_bind.c,
 * facts_items.c, facts_flow.c): a query in the shared capture vocabulary (vocabulary.h,
 * generated from native/vocabulary.py) runs over a tree, and its matches become the facts
 * of native/facts.py's contract, by rules keyed by construct (definition.*, decorator,
 * reference.call, import, import.from, assignment, return, reference.member,
 * binding.context, binding.iteration, binding.comprehension, assignment.member), reading what the captures do
 * not give through node roles and field roles that the language maps its grammar onto
 * (data, not code). Constructs without a rule here go to the language's `other` hook with
 * Node objects.
 */
#ifndef CODEIMPACT_FACTS_H
#define CODEIMPACT_FACTS_H

#include "runner.h"
#include "vocabulary.h"

/* the language's callables (FactEngine's `hooks`) */
enum {
    H_CHAIN,
    H_CALLEE_CHAIN,
    H_LOCAL_SCOPES,
    H_OTHER,
    H_EXPORTS_VALUE,
    HOOK_COUNT
};
/* the fact types (FactEngine's `types`) and FileFacts' lists, in the same order */
enum { T_SYMBOL, T_IMPORT, T_CALL, T_HERITAGE, T_REFERENCE, T_BINDING, T_RETURN, TYPE_COUNT };
/* the string options (FactEngine's `options`) */
enum {
    O_EXPORT_RULE,     /* "underscore": not _x, or __x__; variables: not _x */
    O_TEST_CLASS,      /* a class named with this prefix is a test */
    O_TEST_FUNCTION,   /* a function or method named with this prefix is a test */
    O_SIGNATURE_STRIP, /* characters stripped from the end of a signature */
    O_SELF_MEMBER,     /* `self.`: a member binding is kept for `self.x` alone */
    O_TYPE_PREFIX,     /* the value prefix of a declared type (`ann:`) */
    O_NONE_TYPE,       /* a declared return type that says nothing (`None`) */
    O_EXPORTS_NAME,    /* the module variable listing the exported names (`__all__`) */
    O_HERITAGE_KIND,   /* the kind of a base's heritage fact (`extends`) */
    O_CLASS_MEMBER,    /* `cls.`: a classmethod's member binding, kept as a self_member one */
    O_PARAMETER_CALLEES, /* the last names of the callees whose binding.parameter the hook reads */
    /* the forms of binding values the language's resolver reads (kept as given, not
     * interned: the reference's are code constants, and marshal tells interned ones apart) */
    O_VALUE_ENTER,       /* what a context manager's entry gives (`enter:`) */
    O_VALUE_ENTER_ASYNC, /* the same under the async keyword (`aenter:`) */
    O_VALUE_STORE,       /* a store into a member (`set:`) */
    O_VALUE_ITERATION,   /* a loop variable: `iter:N:chain` */
    O_VALUE_LITERAL,     /* a literal container (`lit:`) */
    O_VALUE_ITEM,        /* an item of one: `item:KEY:chain` */
    O_VALUE_POSITION,    /* a target of unpacking: `at:N:chain` */
    O_NAMES_SUFFIX,      /* a variable so named lists names, not values (`__`: `__all__`) */
    O_LOCAL_RETURNED,    /* the name prefix of a returned literal's local (`ret$`, then K) */
    O_LOCAL_ITERATED,    /* the name prefix of an iterated literal's local (`it$`, then N) */
    O_LOCAL_PASSED,      /* the name prefix of a literal argument's local (`arg$`, then N) */
    O_ARGUMENT_SPREAD,   /* the key of an argument spread as keywords (`**`) */
    OPTION_COUNT
};
enum { O_FIRST_FORM = O_VALUE_ENTER };

/* a definition's class of rules */
enum { K_CLASS, K_FUNCTION, K_METHOD, K_OTHER };

typedef struct {
    PyObject_HEAD
    Runner *runner;
    uint16_t *capture_vocab;  /* by capture id: V_* */
    uint16_t *construct_of;   /* by pattern: the V_* of its construct capture */
    uint8_t *role;            /* by symbol: R_* */
    uint32_t symbol_count;
    TSFieldId fields[F_COUNT];
    PyObject *options[OPTION_COUNT]; /* str ("" when unset) */
    PyObject *hooks[HOOK_COUNT];
    /* the chain hooks are chains.c's cached_chain and cached_callee_chain: their kept
       answers are read without a Python call (call_text_hook) */
    bool native_chain, native_callee_chain;
    PyTypeObject *types[TYPE_COUNT];
    PyObject *capture_names; /* tuple of str, by capture id */
    PyObject *kinds[V_CONSTRUCT_COUNT];      /* a definition's kind string, interned */
    PyObject *constructs[V_CONSTRUCT_COUNT]; /* the construct names, interned */
    /* the match arrays of the last run, emptied, for the next (growing them again file
       after file was ~2% of the walk's cost) */
    RunnerMatches kept;
    /* the local scopes hook's answer for no matches, its names and its rename: most files
       (Django: 2,255 of 2,818) have no comprehension nor lambda, and the hook (a Python
       class) made the same empty object for each */
    PyObject *no_scopes[3];
} FactEngine;

typedef struct {
    Py_ssize_t start, end, parent;
    PyObject *local; /* borrowed from the definitions */
} Interval;

typedef struct {
    TSNode node, name, body;
    size_t order;    /* in match order, for a stable sort */
    PyObject *local; /* owned */
    uint8_t kind;    /* K_* */
    uint16_t vocab;  /* its construct */
    uint32_t literal_returns; /* the literal collections it returned so far (return_fact) */
} Def;

/* one run of the engine over one tree */
typedef struct {
    const FactEngine *e;
    PyObject *like; /* the root Node object: new Nodes share its type and tree */
    const char *src;
    Py_ssize_t src_len;
    RunnerMatches m;
    PyObject *lists[TYPE_COUNT];
    PyObject *facts, *source, *module_vars, *local_scopes, *scope_names, *rename;
    Def *defs;
    Py_ssize_t n_defs;
    Interval *body_iv, *full_iv, *decs;
    Py_ssize_t n_decs;
    PyObject **arguments; /* by call: its arguments, then (n_calls on) its literals */
    /* the matches' indices by what takes them, each in match order (one pass sorts them) */
    size_t *calls, *decorators, *scopes, *others;
    TSNode *call_parts; /* by call (in run->calls order): its callee, then its arguments */
    bool calls_unsorted; /* add_call left them out of their arguments' order */
    size_t n_calls, n_decorators, n_scopes, n_others;
    Py_ssize_t member_start, member_end; /* the last member read examined (facts_bind.c) */
    Py_ssize_t *callees; /* by call: its callee's start and end bytes (in match order) */
    size_t next_callee;  /* the first call whose callee a member read may still be */
    /* the names the file's definitions and imports bind (known_head), sorted; made when
     * first asked: 0 not yet, 1 made, 2 any name (a wildcard import) */
    struct Known *known;
    Py_ssize_t n_known;
    uint8_t known_state;
} Run;

/* Strings every rule shares: "" (the runtime's empty singleton, as the Python extractor's constants
 * are) and the interned kinds of the facts; set by facts_init. */
extern PyObject *S_EMPTY, *S_CALL, *S_DECORATOR, *S_VARIABLE, *S_VALUE, *S_STAR, *S_UNKNOWN,
    *S_READ;

/* PyUnicode_FromFormat's str for the formats the rules use (%U, %u, %ld, %zd), cheaper */
PyObject *text_of(const char *format, ...);

/* what every rule uses */

static inline uint8_t role_of(const Run *run, TSNode node) {
    TSSymbol s = ts_node_symbol(node);
    return s < run->e->symbol_count ? run->e->role[s] : R_NONE;
}

static inline TSNode field_of(const Run *run, TSNode node, int field_role) {
    TSFieldId id = run->e->fields[field_role];
    return id ? runner_field(node, id) : (TSNode){0};
}

/* the node of a match's capture of `vocab`; null when absent */
static inline TSNode part_of(const Run *run, size_t match, int vocab) {
    const RunnerMatch *m = &run->m.matches[match];
    for (uint16_t c = 0; c < m->capture_count; c++) {
        const RunnerCapture *cap = &run->m.caps[m->capture_start + c];
        if (run->e->capture_vocab[cap->id] == vocab) return cap->node;
    }
    return (TSNode){0};
}

/* bisect.bisect_right over the starts, minus one: the last interval starting at or before
 * pos, or -1 */
static inline Py_ssize_t last_starting_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
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

/* the innermost interval holding pos, up the parent chain; -1: the module */
static inline Py_ssize_t scope_index(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
    for (Py_ssize_t i = last_starting_at(iv, n, pos); i >= 0; i = iv[i].parent) {
        if (iv[i].start <= pos && pos < iv[i].end) return i;
    }
    return -1;
}

/* its local (borrowed), "" for the module */
static inline PyObject *scope_at(const Interval *iv, Py_ssize_t n, Py_ssize_t pos) {
    Py_ssize_t i = scope_index(iv, n, pos);
    return i >= 0 ? iv[i].local : S_EMPTY;
}

void span(const Run *run, TSNode node, const char **ptr, Py_ssize_t *len);
PyObject *decoded(const Run *run, TSNode node);                /* node.text.decode() */
PyObject *hook_on_text(const Run *run, int hook, TSNode node); /* hook(node's bytes) */
PyObject *call_text_hook(const FactEngine *e, int hook, PyObject *text); /* hook(text) */
PyObject *line_of(TSNode node);
int usable(PyObject *chain); /* a chain hook's answer is a non-empty str; -1: an error */
/* appends types[type](*items) to its list, stealing the items (NULL ones: an error) */
int append_fact(Run *run, int type, Py_ssize_t n, PyObject **items);
/* (key, value), stealing both (NULL: an error set, or one of them NULL, the other dropped) */
PyObject *new_pair(PyObject *key, PyObject *value);
int append_pair(PyObject *out, PyObject *key, PyObject *value); /* steals both */
TSNode first_named(TSNode node);
/* node's children (runner_children) in room[0 .. ROOM) or, when more, a new array (free it
 * with free_children); NULL with an exception */
enum { ROOM = 32 };
TSNode *children_of(TSNode node, TSNode room[ROOM], uint32_t *count);
void free_children(TSNode *children, TSNode room[ROOM]);
bool starts_with_str(PyObject *s, PyObject *prefix);
PyObject *type_text_of(const Run *run, TSNode node); /* "" beyond 200 bytes */
PyObject *squeezed(const char *ptr, Py_ssize_t len, bool join_spaces, const char *strip);
PyObject *match_dict(const Run *run, size_t match); /* {capture name: Node} */
TSNode parent_of(const Run *run, TSNode node);      /* ts_node_parent, found faster */

/* facts.c: engine.facts(node, source, facts, module_vars) */
PyObject *engine_facts(FactEngine *self, PyObject *const *argv, Py_ssize_t argc);

/* facts_defs.c */
int definitions(Run *run); /* symbols, heritage, return types, the scope intervals */
int decorators(Run *run);  /* the decorator intervals, and calls of plain decorators */
Py_ssize_t def_at_start(const Run *run, uint32_t start);

/* facts_bind.c */
int call_arguments(Run *run); /* run->arguments of every call, in match order */
int call_fact(Run *run, size_t i); /* the i-th call (run->calls[i]) */
int imports_of(Run *run, TSNode node, bool from);
int assignment(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs);
int return_fact(Run *run, TSNode value);
/* a reference.member match (`parent`: the node's parent when the runner knows it, else
 * null) */
int member_read(Run *run, TSNode node, TSNode parent);
bool one_member_of(PyObject *chain, PyObject *prefix); /* `self.x` for the prefix `self.` */
/* chain (stolen; NULL or None pass through) as the local scopes hook renames it at start */
PyObject *local_chain(Run *run, PyObject *chain, Py_ssize_t start);

/* facts_items.c: assignments into and out of containers */
bool holds_items(const Run *run, TSNode lhs, TSNode rhs);
int item_facts(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs);
bool returns_literal(const Run *run, TSNode value);
bool iterated_literal(const Run *run, TSNode value);
bool passes_items(Run *run, TSNode lit);
/* facts.c: whether the head of a name or member (`f`, `mod` of `mod.f`) is a name the file's
 * definitions or imports bind, in any scope (items.py passes_items' `known`) */
bool known_head(Run *run, TSNode item);
int literal_facts(Run *run, PyObject *scope, PyObject *name, TSNode lit, PyObject *line);

/* facts_flow.c: with items, loop and comprehension variables, stores into members */
int context_binding(Run *run, PyObject *scope, TSNode node, TSNode value);
int iteration_binding(Run *run, PyObject *scope, TSNode node, TSNode lhs, TSNode rhs,
                      bool comprehension);
int member_store(Run *run, PyObject *scope, TSNode node, TSNode lhs);

#endif
