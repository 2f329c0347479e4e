/*
 * names_in: the identifiers of text fields of fact rows, added to a set: indexer/plan.py
 * `used_names`, which every file of a full build passes (its lookup keys). An identifier is
 * what plan.py's `_NAME` (`[A-Za-z_][A-Za-z0-9_]*`, ASCII only) finds: a run of ASCII
 * letters, digits and `_` without its leading digits; any other character separates. The
 * Python way gathered the distinct texts, joined them with spaces and ran the regex over the
 * join; here each distinct text is scanned once (`seen`) and a text that is one identifier
 * (`len`, `self`) is added as it is, without a copy.
 */
#include "core.h"

enum { MODE_STR = 0, MODE_PAIRS = 1, MODE_STRS = 2 };

static unsigned char word_char[128]; /* 1: letter or `_`, 2: digit */

static void init_table(void) {
    if (word_char['_']) return;
    for (int c = 'a'; c <= 'z'; c++) word_char[c] = 1;
    for (int c = 'A'; c <= 'Z'; c++) word_char[c] = 1;
    for (int c = '0'; c <= '9'; c++) word_char[c] = 2;
    word_char['_'] = 1;
}

static inline int char_class(Py_UCS4 ch) { return ch < 128 ? word_char[ch] : 0; }

/* The identifiers made so far, by their characters: the same few thousand names (`self`,
 * `assertEqual`, `models`) are cut out of most texts of every file, and each cut made a
 * new string, hashed it (siphash) to add it to a set where it mostly was already, and freed
 * it. Here a name met before is the string made the first time (its hash kept), found by a
 * cheap hash of its characters. Which equal string a set holds does not matter to it nor to
 * marshal (none is interned). The table is emptied when full: its memory stays bounded. */
#define NAMES_SLOTS (1 << 16) /* a power of two */
#define NAMES_MAX (NAMES_SLOTS / 2)
static PyObject *names_made[NAMES_SLOTS];
static Py_ssize_t names_count;

static void names_forget(void) {
    for (Py_ssize_t i = 0; i < NAMES_SLOTS; i++) Py_CLEAR(names_made[i]);
    names_count = 0;
}

/* the name `text[first:end]` (an ASCII identifier), a new reference */
static PyObject *name_of(PyObject *text, int kind, const void *data, Py_ssize_t first,
                         Py_ssize_t end) {
    Py_ssize_t n = end - first;
    uint32_t h = 2166136261u; /* FNV-1a over the characters */
    for (Py_ssize_t i = first; i < end; i++)
        h = (h ^ (uint32_t)PyUnicode_READ(kind, data, i)) * 16777619u;
    size_t slot = h & (NAMES_SLOTS - 1);
    for (;;) {
        PyObject *name = names_made[slot];
        if (name == NULL) break;
        if (PyUnicode_GET_LENGTH(name) == n) { /* (a made name is ASCII: one byte a char) */
            const Py_UCS1 *have = PyUnicode_1BYTE_DATA(name);
            Py_ssize_t i = 0;
            while (i < n && have[i] == PyUnicode_READ(kind, data, first + i)) i++;
            if (i == n) return Py_NewRef(name);
        }
        slot = (slot + 1) & (NAMES_SLOTS - 1);
    }
    PyObject *name = PyUnicode_Substring(text, first, end);
    if (name == NULL) return NULL;
    if (names_count >= NAMES_MAX) {
        names_forget();
        slot = h & (NAMES_SLOTS - 1);
    }
    names_made[slot] = Py_NewRef(name);
    names_count++;
    return name;
}

/* add the identifiers of `text` to `out` */
static int scan(PyObject *out, PyObject *text) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return -1;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t i = 0;
    while (i < n) {
        int cls = char_class(PyUnicode_READ(kind, data, i));
        if (cls == 0) {
            i++;
            continue;
        }
        while (i < n && char_class(PyUnicode_READ(kind, data, i)) == 2) i++; /* leading digits */
        Py_ssize_t first = i;
        while (i < n && char_class(PyUnicode_READ(kind, data, i)) != 0) i++;
        if (first == i) continue; /* digits alone: no identifier */
        int rc;
        if (first == 0 && i == n && PyUnicode_CheckExact(text)) {
            rc = PySet_Add(out, text);
        } else {
            PyObject *name = name_of(text, kind, data, first, i);
            if (name == NULL) return -1;
            rc = PySet_Add(out, name);
            Py_DECREF(name);
        }
        if (rc < 0) return -1;
    }
    return 0;
}

/* scan `text` unless it was scanned before (`seen`) */
static int text_in(PyObject *out, PyObject *seen, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "names_in: a text is %.80s, not str", Py_TYPE(text)->tp_name);
        return -1;
    }
    int had = PySet_Contains(seen, text);
    if (had != 0) return had < 0 ? -1 : 0;
    if (PySet_Add(seen, text) < 0) return -1;
    return scan(out, text);
}

static PyObject *field_of(PyObject *row, Py_ssize_t field) {
    if (PyTuple_Check(row) && field < PyTuple_GET_SIZE(row)) {
        PyObject *item = PyTuple_GET_ITEM(row, field);
        Py_INCREF(item);
        return item;
    }
    return PySequence_GetItem(row, field);
}

static int texts_of(PyObject *out, PyObject *seen, PyObject *value, int mode) {
    if (mode == MODE_STR) return text_in(out, seen, value);
    PyObject *items = PySequence_Fast(value, "names_in: a field is not a sequence");
    if (items == NULL) return -1;
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        if (mode == MODE_STRS) {
            rc = text_in(out, seen, item[k]);
            continue;
        }
        PyObject *second = field_of(item[k], 1); /* (position or name, text) */
        if (second == NULL) {
            rc = -1;
            break;
        }
        rc = text_in(out, seen, second);
        Py_DECREF(second);
    }
    Py_DECREF(items);
    return rc;
}

PyObject *core_names_in(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *out, *seen, *rows;
    Py_ssize_t field;
    int mode;
    if (!PyArg_ParseTuple(args, "O!O!Oni:names_in", &PySet_Type, &out, &PySet_Type, &seen, &rows,
                          &field, &mode))
        return NULL;
    if (mode != MODE_STR && mode != MODE_PAIRS && mode != MODE_STRS) {
        PyErr_Format(PyExc_ValueError, "names_in: unknown mode %d", mode);
        return NULL;
    }
    if (field < 0) {
        PyErr_SetString(PyExc_ValueError, "names_in: negative field");
        return NULL;
    }
    init_table();
    PyObject *fast = PySequence_Fast(rows, "names_in: rows is not a sequence");
    if (fast == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **row = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *value = field_of(row[k], field);
        if (value == NULL) goto fail;
        int rc = texts_of(out, seen, value, mode);
        Py_DECREF(value);
        if (rc < 0) goto fail;
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
fail:
    Py_DECREF(fast);
    return NULL;
}

/* rows_prefixed(rows, field, prefix, need) -> list: the rows whose item `field` is a str that
 * starts with `prefix` and, when need >= 0, whose item `need` is true, in their order
 * (indexer/plan.py binder_names' `self.` calls and bindings: a Python loop's test per fact of
 * every file of a full build, for the few it keeps). */
PyObject *core_rows_prefixed(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rows, *prefix;
    Py_ssize_t field, need;
    if (!PyArg_ParseTuple(args, "OnUn:rows_prefixed", &rows, &field, &prefix, &need)) return NULL;
    if (field < 0) {
        PyErr_SetString(PyExc_ValueError, "rows_prefixed: negative field");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(rows, "rows_prefixed: rows is not a sequence");
    if (fast == NULL) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) goto fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **row = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *r = row[k];
        if (!PyTuple_Check(r) || field >= PyTuple_GET_SIZE(r) || need >= PyTuple_GET_SIZE(r)) {
            PyErr_SetString(PyExc_TypeError, "rows_prefixed: a row is no tuple of those fields");
            goto fail;
        }
        PyObject *text = PyTuple_GET_ITEM(r, field);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "rows_prefixed: a text is %.80s, not str",
                         Py_TYPE(text)->tp_name);
            goto fail;
        }
        Py_ssize_t match = PyUnicode_Tailmatch(text, prefix, 0, PY_SSIZE_T_MAX, -1);
        if (match < 0) goto fail;
        if (!match) continue;
        if (need >= 0) {
            int truth = PyObject_IsTrue(PyTuple_GET_ITEM(r, need));
            if (truth < 0) goto fail;
            if (!truth) continue;
        }
        if (PyList_Append(out, r) < 0) goto fail;
    }
    Py_DECREF(fast);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(fast);
    return NULL;
}
