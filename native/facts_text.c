/*
 * The strs the fact rules compose from source text and parts: text_of (what
 * PyUnicode_FromFormat gives for the rules' formats), type_text_of (a type's text without
 * spaces and quotes) and squeezed (a signature's or a first line's text, spaces joined,
 * stripped and cut). The same strs as the Python extractor's (tests/test_native_facts.py).
 */

#include "facts.h"

enum { TEXT_ROOM = 256 };

/* PyUnicode_FromFormat(format, ...) for the formats the rules use (%U, %u, %ld, %zd and
 * literal text), the same str: a new one, or the runtime's one-character singleton for a
 * one-character result (as its writer gives). PyUnicode_FromFormat parses the format and
 * writes through a _PyUnicodeWriter at each call (~1,100 instructions for `A.f`); this
 * writes ASCII text into a buffer once, and leaves anything else (a str argument that is
 * not ASCII, a longer text) to PyUnicode_FromFormatV. */
PyObject *text_of(const char *format, ...) {
    char room[TEXT_ROOM];
    Py_ssize_t n = 0;
    va_list args;
    va_start(args, format);
    const char *f = format;
    for (; *f; f++) {
        if (*f != '%') {
            if (n == TEXT_ROOM) break;
            room[n++] = *f;
            continue;
        }
        f++;
        if (*f == 'U') {
            PyObject *s = va_arg(args, PyObject *);
            if (!PyUnicode_IS_ASCII(s) || PyUnicode_GET_LENGTH(s) > TEXT_ROOM - n) break;
            memcpy(room + n, PyUnicode_1BYTE_DATA(s), (size_t)PyUnicode_GET_LENGTH(s));
            n += PyUnicode_GET_LENGTH(s);
            continue;
        }
        long long v;
        if (*f == 'u') {
            v = va_arg(args, unsigned int);
        } else if (f[0] == 'l' && f[1] == 'd') {
            v = va_arg(args, long);
            f++;
        } else if (f[0] == 'z' && f[1] == 'd') {
            v = va_arg(args, Py_ssize_t);
            f++;
        } else {
            break; /* (no other conversion is used) */
        }
        char digits[24];
        int k = 0;
        unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
        do {
            digits[k++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) digits[k++] = '-';
        if (k > TEXT_ROOM - n) break;
        while (k) room[n++] = digits[--k];
    }
    va_end(args);
    if (*f == '\0') return PyUnicode_DecodeASCII(room, n, NULL);
    va_start(args, format);
    PyObject *out = PyUnicode_FromFormatV(format, args);
    va_end(args);
    return out;
}

/* type text: whitespace and quotes removed (a forward reference's quotes); "" beyond 200
 * bytes, which are noise for resolution */
PyObject *type_text_of(const Run *run, TSNode node) {
    const char *ptr;
    Py_ssize_t len;
    span(run, node, &ptr, &len);
    char *buf = PyMem_Malloc(len ? (size_t)len : 1);
    if (buf == NULL) return PyErr_NoMemory();
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)ptr[i];
        if (!is_space_byte(c) && c != '"' && c != '\'') buf[n++] = (char)c;
    }
    PyObject *out = n > 200 ? Py_NewRef(S_EMPTY) : PyUnicode_DecodeUTF8(buf, n, "replace");
    PyMem_Free(buf);
    return out;
}

/* s.strip() bounds (str.isspace), narrowing [*a, *b) */
static void strip_bounds(PyObject *s, Py_ssize_t *a, Py_ssize_t *b) {
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    while (*a < *b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, *a))) (*a)++;
    while (*b > *a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, *b - 1))) (*b)--;
}

/* strip_bounds over ASCII bytes (str.isspace of each, as the decoded str's) */
static void ascii_strip_bounds(const char *text, Py_ssize_t *a, Py_ssize_t *b) {
    while (*a < *b && Py_UNICODE_ISSPACE((Py_UCS4)(unsigned char)text[*a])) (*a)++;
    while (*b > *a && Py_UNICODE_ISSPACE((Py_UCS4)(unsigned char)text[*b - 1])) (*b)--;
}

enum { SQUEEZE_ROOM = 512 };

/* The text of a signature or of a variable's first line: `b" ".join(raw.split())` when
 * `join_spaces`, decoded with errors="replace", then `.strip()`, with `.rstrip(strip)
 * .strip()` when `strip` is not empty, and cut to 300 characters. ASCII text (nearly all)
 * is stripped and cut as bytes and decoded once: one str made, not a decoded one and its
 * substring. */
PyObject *squeezed(const char *ptr, Py_ssize_t len, bool join_spaces, const char *strip) {
    char room[SQUEEZE_ROOM];
    char *buf = len <= SQUEEZE_ROOM ? room : PyMem_Malloc((size_t)len);
    if (buf == NULL) return PyErr_NoMemory();
    Py_ssize_t n = 0;
    unsigned char high = 0; /* (every byte's bits: ASCII when below 128) */
    if (join_spaces) {
        bool pending = false;
        for (Py_ssize_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)ptr[i];
            if (is_space_byte(c)) {
                pending = n > 0;
                continue;
            }
            if (pending) buf[n++] = ' ';
            pending = false;
            buf[n++] = (char)c;
            high |= c;
        }
    } else {
        memcpy(buf, ptr, (size_t)len);
        n = len;
        for (Py_ssize_t i = 0; i < len; i++) high |= (unsigned char)ptr[i];
    }
    PyObject *out;
    bool stripping = strip != NULL && strip[0] != '\0';
    if (high < 128) {
        Py_ssize_t a = 0, b = n;
        ascii_strip_bounds(buf, &a, &b);
        if (stripping) {
            while (b > a && strchr(strip, (int)(unsigned char)buf[b - 1]) != NULL) b--;
            ascii_strip_bounds(buf, &a, &b);
        }
        if (b - a > 300) b = a + 300;
        out = PyUnicode_DecodeASCII(buf + a, b - a, NULL);
    } else {
        PyObject *s = PyUnicode_DecodeUTF8(buf, n, "replace");
        out = NULL;
        if (s != NULL) {
            Py_ssize_t a = 0, b = PyUnicode_GET_LENGTH(s);
            strip_bounds(s, &a, &b);
            if (stripping) {
                while (b > a) {
                    Py_UCS4 c = PyUnicode_READ_CHAR(s, b - 1);
                    if (c > 127 || strchr(strip, (int)c) == NULL) break;
                    b--;
                }
                strip_bounds(s, &a, &b);
            }
            if (b - a > 300) b = a + 300;
            out = PyUnicode_Substring(s, a, b);
            Py_DECREF(s);
        }
    }
    if (buf != room) PyMem_Free(buf);
    return out;
}
