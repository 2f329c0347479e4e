/* chain_text(text) and callee_chain_text(text, chain): a call's function expression as a
 * chain, for the one language whose extraction reads chains from text (Python:
 * indexer/lang/python/chains.py `_chain` and `callee_chain`, without their caches).
 * chain_text: a plain chain `a . b.c` (space allowed around the member operator) -> "a.b.c",
 * anything else -> None. callee_chain_text: chain(text) when that is not None (the extractor
 * passes its cached _chain, so the string is the one the cache holds), else the chain with a
 * `()`/`[]` step suffix per bracket group, string literals inside a group skipped whole.
 * What the language's text looks like (which bytes make a name, space, the member operator,
 * the brackets, the string literal forms) is not written here: setup.py generates
 * chain_syntax.h from indexer/lang/python/chain_syntax.py at build time, the declaration
 * the Python versions compile their regular expressions from too. The Python versions stay
 * the reference, which tests compare these with. */

#include "runner.h"

#include "chain_syntax.h"

static inline bool has(unsigned char c, unsigned char cls) { return (CHAIN_CLASS[c] & cls) != 0; }

/* the end of the name starting at i, or i when none starts there */
static Py_ssize_t name_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i) {
    if (i >= n || !has(b[i], CS_NAME_START)) return i;
    i++;
    while (i < n && has(b[i], CS_NAME_REST)) i++;
    return i;
}

static bool is_plain_chain(const unsigned char *b, Py_ssize_t n) {
    Py_ssize_t i = name_end(b, n, 0);
    if (i == 0) return false;
    while (i < n) {
        Py_ssize_t j = i;
        while (j < n && has(b[j], CS_SPACE)) j++;
        if (j >= n || !has(b[j], CS_MEMBER)) return false;
        j++;
        while (j < n && has(b[j], CS_SPACE)) j++;
        Py_ssize_t e = name_end(b, n, j);
        if (e == j) return false;
        i = e;
    }
    return true;
}

const char chain_text_doc[] = PyDoc_STR(
"chain_text(text, /)\n--\n\n"
"The chain extractor's _chain without its cache: the plain chain `text` spells\n"
"(space around the member operators dropped), or None.");

PyObject *chain_text(PyObject *Py_UNUSED(module), PyObject *text) {
    if (!PyBytes_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be bytes, not %.200s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(text);
    Py_ssize_t n = PyBytes_GET_SIZE(text);
    if (!is_plain_chain(b, n)) Py_RETURN_NONE;
    char *kept = PyMem_Malloc((size_t)n);
    if (kept == NULL) return PyErr_NoMemory();
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!has(b[i], CS_SPACE)) kept[k++] = (char)b[i];
    }
    /* decoded as bytes.decode() does (a one-character chain is the runtime's shared string:
       the facts' marshalled bytes depend on which strings are shared) */
    PyObject *out = PyUnicode_DecodeASCII(kept, k, NULL);
    PyMem_Free(kept);
    return out;
}

/* The end of the string literal of `form` starting at i, or -1 when none does: a multiline
 * form runs to the next quote (no escapes), a one-line form to the next quote before a
 * newline, CHAIN_ESCAPE escaping the byte after it (the regular expressions of
 * chain_syntax.StringForm.pattern). */
static Py_ssize_t string_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i,
                             const chain_string *form) {
    Py_ssize_t q = form->length;
    if (i + q > n || b[i] != (unsigned char)form->quote[0] ||
        memcmp(b + i, form->quote, (size_t)q) != 0)
        return -1;
    if (form->multiline) {
        for (Py_ssize_t j = i + q; j + q <= n; j++) {
            if (memcmp(b + j, form->quote, (size_t)q) == 0) return j + q;
        }
        return -1;
    }
    unsigned char quote = (unsigned char)form->quote[0];
    Py_ssize_t j = i + 1;
    while (j < n) {
        if (b[j] == CHAIN_ESCAPE && j + 1 < n) {
            j += 2;
        } else if (b[j] != quote && b[j] != CHAIN_ESCAPE && b[j] != '\n') {
            j++;
        } else {
            break;
        }
    }
    return j < n && b[j] == quote ? j + 1 : -1;
}

/* The end of the token starting at i (i < n), trying the alternatives of chain_syntax's
 * TOKEN_PATTERN in order: space, a name, a string literal form (in CHAIN_STRINGS' order),
 * else any one byte (a member operator, a bracket, or any other). */
static Py_ssize_t token_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i) {
    unsigned char c = b[i];
    if (has(c, CS_SPACE)) {
        Py_ssize_t j = i + 1;
        while (j < n && has(b[j], CS_SPACE)) j++;
        return j;
    }
    if (has(c, CS_NAME_START)) return name_end(b, n, i);
    if (!has(c, CS_QUOTE)) return i + 1;
    for (int f = 0; f < CHAIN_STRING_COUNT; f++) {
        Py_ssize_t j = string_end(b, n, i, &CHAIN_STRINGS[f]);
        if (j >= 0) return j;
    }
    return i + 1;
}

const char callee_chain_text_doc[] = PyDoc_STR(
"callee_chain_text(text, chain, /)\n--\n\n"
"The chain extractor's callee_chain without its cache: chain(text) when not None, else\n"
"the chain of names, member operators and `()`/`[]` suffixes for balanced bracket groups,\n"
"or None.");

static PyObject *callee_form(PyObject *text);

PyObject *callee_chain_text(PyObject *Py_UNUSED(module), PyObject *const *argv,
                                   Py_ssize_t argc) {
    if (check_argc("callee_chain_text", argc, 2) < 0) return NULL;
    PyObject *text = argv[0];
    if (!PyBytes_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be bytes, not %.200s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    PyObject *plain = PyObject_CallOneArg(argv[1], text);
    if (plain != Py_None) return plain; /* a chain, or NULL with an exception */
    Py_DECREF(plain);
    return callee_form(text);
}

/* callee_chain_text's answer for a text that is not a plain chain */
static PyObject *callee_form(PyObject *text) {
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(text);
    Py_ssize_t n = PyBytes_GET_SIZE(text);
    /* the output is never longer than the text: a suffix "()" or "[]" stands for a group of
       at least two bytes */
    char *out = PyMem_Malloc(n ? (size_t)n : 1);
    if (out == NULL) return PyErr_NoMemory();
    Py_ssize_t k = 0, depth = 0, groups = 0;
    unsigned char opener = 0;
    bool expect_name = true, ok = true;
    for (Py_ssize_t i = 0; i < n && ok;) {
        Py_ssize_t j = token_end(b, n, i);
        unsigned char c = b[i];
        bool single = j == i + 1;
        if (depth) {
            if (single && has(c, CS_OPEN)) {
                depth++;
            } else if (single && has(c, CS_CLOSE)) {
                if (--depth == 0) {
                    out[k++] = (char)opener;
                    out[k++] = (char)CHAIN_CLOSER[opener];
                    if (++groups > CHAIN_MAX_GROUPS) ok = false;
                }
            }
        } else if (has(c, CS_SPACE)) {
            /* skipped */
        } else if (single && has(c, CS_MEMBER)) {
            if (expect_name) ok = false;
            else out[k++] = (char)c, expect_name = true;
        } else if (has(c, CS_NAME_START)) {
            if (!expect_name) ok = false;
            else memcpy(out + k, b + i, (size_t)(j - i)), k += j - i, expect_name = false;
        } else if (single && has(c, CS_OPEN)) {
            if (expect_name) ok = false;
            else depth = 1, opener = c;
        } else {
            ok = false;
        }
        i = j;
    }
    PyObject *result;
    if (!ok || depth || expect_name || k == 0) {
        result = Py_NewRef(Py_None);
    } else {
        result = PyUnicode_DecodeASCII(out, k, NULL);
    }
    PyMem_Free(out);
    return result;
}


/* The answers of chain_text and callee_chain_text per text read: the one cache of the
 * extractor's `_chain` and `callee_chain` (chains.py: cached_chain, cached_callee_chain),
 * which the fact engine reads without a Python call (chain_of_bytes, callee_chain_of_bytes:
 * the lru_cache wrappers and the lambda between them were ~2.5% of a Django extraction's
 * instructions). A text's answer is one object while it is kept, and a callee's plain chain
 * is its chain's: the facts' marshalled bytes write a string once and refer to it after
 * only when it is the same object. Both emptied at once between two files of the fact engine
 * once either is past CHAIN_KEPT texts (chains_next_file), inside one only past four times
 * that (a caller without the engine). */
enum { CHAIN_KEPT = 1 << 14 };

/* A table of kept answers: text (bytes) -> answer (str or None), looked up by the text's
 * bytes (the fact engine's spans of the source, without a bytes object; a dict's lookup
 * hashed a new bytes object with SipHash each time: ~420 instructions a lookup). Open
 * addressing, linear probing, at most half full. */
typedef struct {
    PyObject *text, *answer; /* NULL text: empty */
    uint64_t hash;
} Kept;

typedef struct {
    Kept *slots;
    size_t cap, count; /* cap: 0 or a power of two */
} KeptTable;

static KeptTable chains_seen, callees_seen;

static inline uint64_t text_hash(const char *p, Py_ssize_t n) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

static PyObject *kept_find(const KeptTable *t, const char *p, Py_ssize_t n, uint64_t h) {
    if (t->cap == 0) return NULL;
    for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const Kept *k = &t->slots[i];
        if (k->text == NULL) return NULL;
        if (k->hash == h && PyBytes_GET_SIZE(k->text) == n &&
            memcmp(PyBytes_AS_STRING(k->text), p, (size_t)n) == 0)
            return k->answer;
    }
}

static void kept_place(KeptTable *t, Kept entry) {
    size_t i = entry.hash & (t->cap - 1);
    while (t->slots[i].text != NULL) i = (i + 1) & (t->cap - 1);
    t->slots[i] = entry;
}

/* takes a reference to `answer` (and a new one to `text`); -1 with MemoryError */
static int kept_add(KeptTable *t, PyObject *text, PyObject *answer, uint64_t h) {
    if (2 * (t->count + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        Kept *slots = PyMem_Calloc(cap, sizeof(Kept));
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        Kept *old = t->slots;
        size_t old_cap = t->cap;
        t->slots = slots;
        t->cap = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].text != NULL) kept_place(t, old[i]);
        }
        PyMem_Free(old);
    }
    kept_place(t, (Kept){Py_NewRef(text), answer, h});
    t->count++;
    return 0;
}

static void kept_clear(KeptTable *t) {
    if (t->count == 0) return;
    for (size_t i = 0; i < t->cap; i++) {
        Kept *k = &t->slots[i];
        if (k->text == NULL) continue;
        Py_DECREF(k->text);
        Py_DECREF(k->answer);
        k->text = k->answer = NULL;
    }
    t->count = 0;
}

/* both at once: a callee's kept plain chain must stay the chain's kept answer */
static void forget_chains(void) {
    kept_clear(&chains_seen);
    kept_clear(&callees_seen);
}

/* the kept answer for the text p[0 .. n) (`text`: those bytes as an object, or NULL: made
 * when needed), or answer(text) kept */
static PyObject *kept_answer(KeptTable *seen, const char *p, Py_ssize_t n, PyObject *text,
                             PyObject *(*answer)(PyObject *)) {
    uint64_t h = text_hash(p, n);
    PyObject *hit = kept_find(seen, p, n, h);
    if (hit != NULL) return Py_NewRef(hit);
    PyObject *made = NULL;
    if (text == NULL && (text = made = PyBytes_FromStringAndSize(p, n)) == NULL) return NULL;
    PyObject *out = answer(text);
    if (out != NULL) {
        if (seen->count >= 4 * CHAIN_KEPT) forget_chains();
        if (kept_add(seen, text, Py_NewRef(out), h) < 0) {
            Py_DECREF(out); /* (kept_add dropped nothing: its reference too) */
            Py_DECREF(out);
            out = NULL;
        }
    }
    Py_XDECREF(made);
    return out;
}

static PyObject *chain_answer(PyObject *text) { return chain_text(NULL, text); }

PyObject *chain_of_span(const char *p, Py_ssize_t n) {
    return kept_answer(&chains_seen, p, n, NULL, chain_answer);
}

PyObject *chain_of_bytes(PyObject *text) {
    return kept_answer(&chains_seen, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text), text,
                       chain_answer);
}

static PyObject *callee_answer(PyObject *text) {
    PyObject *plain = chain_of_bytes(text);
    if (plain != Py_None) return plain; /* a chain, or NULL with an exception */
    Py_DECREF(plain);
    return callee_form(text);
}

PyObject *callee_chain_of_span(const char *p, Py_ssize_t n) {
    return kept_answer(&callees_seen, p, n, NULL, callee_answer);
}

PyObject *callee_chain_of_bytes(PyObject *text) {
    return kept_answer(&callees_seen, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text), text,
                       callee_answer);
}

void chains_next_file(void) {
    if (chains_seen.count > CHAIN_KEPT || callees_seen.count > CHAIN_KEPT) forget_chains();
}

static int bytes_arg(const char *name, PyObject *text) {
    if (PyBytes_Check(text)) return 0;
    PyErr_Format(PyExc_TypeError, "%s: text must be bytes, not %.200s", name,
                 Py_TYPE(text)->tp_name);
    return -1;
}

const char cached_chain_doc[] = PyDoc_STR(
"cached_chain(text, /)\n--\n\n"
"chain_text(text), kept per text (one object per text while kept; the fact engine\n"
"reads the same answers).");

PyObject *cached_chain(PyObject *Py_UNUSED(module), PyObject *text) {
    return bytes_arg("cached_chain", text) < 0 ? NULL : chain_of_bytes(text);
}

const char cached_callee_chain_doc[] = PyDoc_STR(
"cached_callee_chain(text, /)\n--\n\n"
"callee_chain_text(text, cached_chain), kept per text (the fact engine reads the same\n"
"answers).");

PyObject *cached_callee_chain(PyObject *Py_UNUSED(module), PyObject *text) {
    return bytes_arg("cached_callee_chain", text) < 0 ? NULL : callee_chain_of_bytes(text);
}
