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
    Py_ssize_t k = 0, depth = 0;
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
static PyObject *chains_seen, *callees_seen; /* dict: bytes -> str or None */

/* both at once: a callee's kept plain chain must stay the chain's kept answer */
static void forget_chains(void) {
    if (chains_seen != NULL) PyDict_Clear(chains_seen);
    if (callees_seen != NULL) PyDict_Clear(callees_seen);
}

static PyObject *kept_answer(PyObject **seen, PyObject *text, PyObject *(*answer)(PyObject *)) {
    if (*seen == NULL && (*seen = PyDict_New()) == NULL) return NULL;
    PyObject *hit = PyDict_GetItemWithError(*seen, text);
    if (hit != NULL) return Py_NewRef(hit);
    if (PyErr_Occurred()) return NULL;
    PyObject *out = answer(text);
    if (out == NULL) return NULL;
    if (PyDict_GET_SIZE(*seen) >= 4 * CHAIN_KEPT) forget_chains();
    if (PyDict_SetItem(*seen, text, out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *chain_answer(PyObject *text) { return chain_text(NULL, text); }

PyObject *chain_of_bytes(PyObject *text) {
    return kept_answer(&chains_seen, text, chain_answer);
}

static PyObject *callee_answer(PyObject *text) {
    PyObject *plain = chain_of_bytes(text);
    if (plain != Py_None) return plain; /* a chain, or NULL with an exception */
    Py_DECREF(plain);
    return callee_form(text);
}

PyObject *callee_chain_of_bytes(PyObject *text) {
    return kept_answer(&callees_seen, text, callee_answer);
}

void chains_next_file(void) {
    if ((chains_seen != NULL && PyDict_GET_SIZE(chains_seen) > CHAIN_KEPT) ||
        (callees_seen != NULL && PyDict_GET_SIZE(callees_seen) > CHAIN_KEPT))
        forget_chains();
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
