/* chain_text(text) is the Python extractor's uncached _chain (indexer/lang/python/extract.py):
 * `a.b.c` (whitespace allowed around the dots: the fullmatch of
 * rb"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*") -> "a.b.c", anything else -> None.
 * callee_chain_text(text, chain) is its uncached callee_chain: chain(text) when that is not
 * None (the extractor passes its cached _chain, so the string is the one the cache holds),
 * else the chain with `()`/`[]` step suffixes read by its tokenizer. The extractor caches
 * both; its Python versions stay the reference, which tests compare these with. */

#include "runner.h"

/* the end of the name starting at i, or i when none starts there */
static Py_ssize_t name_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i) {
    if (i >= n || !is_name_start(b[i])) return i;
    i++;
    while (i < n && is_word_byte(b[i])) i++;
    return i;
}

static bool is_plain_chain(const unsigned char *b, Py_ssize_t n) {
    Py_ssize_t i = name_end(b, n, 0);
    if (i == 0) return false;
    while (i < n) {
        Py_ssize_t j = i;
        while (j < n && is_space_byte(b[j])) j++;
        if (j >= n || b[j] != '.') return false;
        j++;
        while (j < n && is_space_byte(b[j])) j++;
        Py_ssize_t e = name_end(b, n, j);
        if (e == j) return false;
        i = e;
    }
    return true;
}

const char chain_text_doc[] = PyDoc_STR(
"chain_text(text, /)\n--\n\n"
"The Python extractor's _chain without its cache: the dotted chain `text` spells\n"
"(whitespace around the dots dropped), or None.");

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
        if (!is_space_byte(b[i])) kept[k++] = (char)b[i];
    }
    /* decoded as bytes.decode() does (a one-character chain is the runtime's shared string:
       the facts' marshalled bytes depend on which strings are shared) */
    PyObject *out = PyUnicode_DecodeASCII(kept, k, NULL);
    PyMem_Free(kept);
    return out;
}

/* The end of the token of the Python extractor's _TOKEN starting at i (i < n), trying its
 * alternatives in order as the regex does: whitespace, a name, a dot or a bracket, a
 * triple-quoted string, a one-line string with escapes, else any one byte. */
static Py_ssize_t token_end(const unsigned char *b, Py_ssize_t n, Py_ssize_t i) {
    unsigned char c = b[i];
    if (is_space_byte(c)) {
        Py_ssize_t j = i + 1;
        while (j < n && is_space_byte(b[j])) j++;
        return j;
    }
    if (is_name_start(c)) return name_end(b, n, i);
    if (c == '\'' || c == '"') {
        if (i + 2 < n && b[i + 1] == c && b[i + 2] == c) { /* '''.*?''' (re.S) */
            for (Py_ssize_t j = i + 3; j + 2 < n; j++) {
                if (b[j] == c && b[j + 1] == c && b[j + 2] == c) return j + 3;
            }
        }
        Py_ssize_t j = i + 1; /* '(?:\\.|[^'\\\n])*' */
        while (j < n) {
            if (b[j] == '\\' && j + 1 < n) {
                j += 2;
            } else if (b[j] != c && b[j] != '\\' && b[j] != '\n') {
                j++;
            } else {
                break;
            }
        }
        if (j < n && b[j] == c) return j + 1;
    }
    return i + 1; /* a dot, a bracket, or any other byte */
}

const char callee_chain_text_doc[] = PyDoc_STR(
"callee_chain_text(text, chain, /)\n--\n\n"
"The Python extractor's callee_chain without its cache: chain(text) when not None, else\n"
"the chain of names, dots and `()`/`[]` suffixes for balanced bracket groups, or None.");

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
            if (single && (c == '(' || c == '[')) {
                depth++;
            } else if (single && (c == ')' || c == ']')) {
                if (--depth == 0) {
                    out[k++] = opener == '(' ? '(' : '[';
                    out[k++] = opener == '(' ? ')' : ']';
                }
            }
        } else if (is_space_byte(c)) {
            /* skipped */
        } else if (single && c == '.') {
            if (expect_name) ok = false;
            else out[k++] = '.', expect_name = true;
        } else if (is_name_start(c)) {
            if (!expect_name) ok = false;
            else memcpy(out + k, b + i, (size_t)(j - i)), k += j - i, expect_name = false;
        } else if (single && (c == '(' || c == '[')) {
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

