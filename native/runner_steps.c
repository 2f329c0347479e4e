/*
 * A runner's compiled steps as bytes, and a runner made from them without compiling its
 * query.
 *
 * ts_query_new analyses every pattern against the grammar's parse table (which steps are
 * guaranteed once their parent matched, the `fallible` flags the walk reads): for Python's
 * queries.scm ~81 M instructions, 6-10 ms of CPU, paid again by every process that extracts
 * a file: an edit of one file paid it for a parse of a few hundred microseconds. What the
 * walk reads of the query is its step table, the pattern starts, the capture names and
 * whether a match holds one node per capture (runner.h): exported once, they make the same
 * runner again. The query itself is compiled only if the cursor has to run (a tree deeper
 * than the walk follows, a query the walk does not implement), from the text kept for it.
 *
 * An export is used only for the very query text, grammar (name, ABI, counts) and build of
 * this extension (its sources' digest and the step layout) it was made by; anything else is
 * refused and the caller compiles the query.
 */

#include "runner.h"

#ifndef CODEIMPACT_SOURCE_DIGEST
#define CODEIMPACT_SOURCE_DIGEST ""
#endif

static const char MAGIC[8] = "CIRSTEP1";

TSQuery *runner_query(Runner *r) {
    if (r->query != NULL) return r->query;
    uint32_t offset = 0;
    TSQueryError error = TSQueryErrorNone;
    r->query = ts_query_new(r->language, r->text, r->text_length, &offset, &error);
    if (r->query == NULL) {
        PyErr_Format(PyExc_ValueError, "invalid query: error %d at byte %u", (int)error, offset);
        return NULL;
    }
    return r->query;
}

const char *runner_capture_name(const Runner *r, uint32_t id, uint32_t *length) {
    if (r->capture_names == NULL) return ts_query_capture_name_for_id(r->query, id, length);
    *length = r->capture_name_lengths[id];
    return r->capture_names[id];
}

/* ------------------------------------------------------------------------- */
/* writing                                                                   */

typedef struct {
    char *data;
    size_t size, cap;
} Out;

static bool put(Out *o, const void *bytes, size_t n) {
    if (o->size + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->size + n) cap *= 2;
        char *grown = PyMem_RawRealloc(o->data, cap);
        if (grown == NULL) return false;
        o->data = grown;
        o->cap = cap;
    }
    memcpy(o->data + o->size, bytes, n);
    o->size += n;
    return true;
}

static bool put_u32(Out *o, uint32_t v) { return put(o, &v, sizeof v); }

static bool put_text(Out *o, const char *text, uint32_t n) {
    return put_u32(o, n) && put(o, text, n);
}

/* what an export is bound to: this build, the step layout, the grammar, the query */
static bool put_identity(Out *o, const TSLanguage *language, const char *text, uint32_t n) {
    const char *name = ts_language_name(language);
    return put(o, MAGIC, sizeof MAGIC) &&
           put_text(o, CODEIMPACT_SOURCE_DIGEST, (uint32_t)strlen(CODEIMPACT_SOURCE_DIGEST)) &&
           put_u32(o, (uint32_t)sizeof(RunnerStep)) &&
           put_text(o, name ? name : "", name ? (uint32_t)strlen(name) : 0) &&
           put_u32(o, ts_language_abi_version(language)) &&
           put_u32(o, ts_language_symbol_count(language)) &&
           put_u32(o, ts_language_state_count(language)) &&
           put_u32(o, ts_language_field_count(language)) && put_text(o, text, n);
}

PyObject *runner_export(const Runner *r) {
    Out o = {0};
    bool ok = put_identity(&o, r->language, r->text, r->text_length) && put_u32(&o, r->pattern_count) &&
              put_u32(&o, r->capture_count) && put_u32(&o, r->step_count) &&
              put_u32(&o, r->tuple_shaped) &&
              put(&o, r->steps, r->step_count * sizeof(RunnerStep)) &&
              put(&o, r->first_step, r->pattern_count * sizeof(uint16_t));
    for (uint32_t i = 0; ok && i < r->capture_count; i++) {
        uint32_t n;
        const char *name = runner_capture_name(r, i, &n);
        ok = put_text(&o, name, n);
    }
    PyObject *bytes = ok ? PyBytes_FromStringAndSize(o.data, (Py_ssize_t)o.size) : NULL;
    if (!ok) PyErr_NoMemory();
    PyMem_RawFree(o.data);
    return bytes;
}

/* ------------------------------------------------------------------------- */
/* reading                                                                   */

typedef struct {
    const char *data;
    size_t size, at;
} In;

static const char *take(In *in, size_t n) {
    if (n > in->size - in->at) return NULL;
    const char *p = in->data + in->at;
    in->at += n;
    return p;
}

static bool take_u32(In *in, uint32_t *v) {
    const char *p = take(in, sizeof *v);
    if (p != NULL) memcpy(v, p, sizeof *v);
    return p != NULL;
}

static const char *take_text(In *in, uint32_t *n) {
    return take_u32(in, n) ? take(in, *n) : NULL;
}

/* a copy of what this runner's own set-up would export (put_identity), byte for byte */
static bool same_identity(In *in, const TSLanguage *language, const char *text, uint32_t n) {
    Out o = {0};
    bool same = false;
    if (put_identity(&o, language, text, n)) {
        const char *p = take(in, o.size);
        same = p != NULL && memcmp(p, o.data, o.size) == 0;
    }
    PyMem_RawFree(o.data);
    return same;
}

Runner *runner_from_export(const TSLanguage *language, const char *text, uint32_t length,
                           const char *data, size_t size) {
    In in = {data, size, 0};
    uint32_t patterns, captures, steps, tuple_shaped;
    if (!same_identity(&in, language, text, length) || !take_u32(&in, &patterns) ||
        !take_u32(&in, &captures) || !take_u32(&in, &steps) || !take_u32(&in, &tuple_shaped) ||
        patterns >= RUNNER_NONE || captures >= RUNNER_NONE || steps == 0)
        return NULL;
    const char *step_bytes = take(&in, (size_t)steps * sizeof(RunnerStep));
    const char *first_bytes = take(&in, (size_t)patterns * sizeof(uint16_t));
    if (step_bytes == NULL || first_bytes == NULL) return NULL;
    Runner *r = PyMem_RawCalloc(1, sizeof(Runner));
    if (r == NULL) return NULL;
    r->language = language;
    r->pattern_count = patterns;
    r->capture_count = captures;
    r->step_count = steps;
    r->tuple_shaped = tuple_shaped != 0;
    r->steps = PyMem_RawMalloc((size_t)steps * sizeof(RunnerStep));
    r->first_step = PyMem_RawCalloc(patterns ? patterns : 1, sizeof(uint16_t));
    r->text = PyMem_RawMalloc(length ? length : 1);
    r->capture_names = PyMem_RawCalloc(captures ? captures : 1, sizeof(char *));
    r->capture_name_lengths = PyMem_RawCalloc(captures ? captures : 1, sizeof(uint32_t));
    bool ok = r->steps != NULL && r->first_step != NULL && r->text != NULL &&
              r->capture_names != NULL && r->capture_name_lengths != NULL;
    if (ok) {
        memcpy(r->steps, step_bytes, (size_t)steps * sizeof(RunnerStep));
        memcpy(r->first_step, first_bytes, (size_t)patterns * sizeof(uint16_t));
        memcpy(r->text, text, length);
        r->text_length = length;
    }
    for (uint32_t i = 0; ok && i < captures; i++) {
        uint32_t n;
        const char *name = take_text(&in, &n);
        ok = name != NULL && (r->capture_names[i] = PyMem_RawMalloc(n + 1)) != NULL;
        if (ok) {
            memcpy(r->capture_names[i], name, n);
            r->capture_names[i][n] = '\0';
            r->capture_name_lengths[i] = n;
        }
    }
    /* every step a pattern's and every pattern starting at a step: else not an export */
    for (uint32_t p = 0; ok && p < patterns; p++) ok = r->first_step[p] < steps;
    ok = ok && in.at == in.size && r->steps[steps - 1].depth == RUNNER_DONE;
    if (!ok || !runner_finish(r, false)) {
        runner_free(r);
        return NULL;
    }
    return r;
}
