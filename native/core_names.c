/*
 * names_of: the identifiers of text fields of fact rows, as a set: indexer/plan.py
 * `used_names`, which every file of a full build passes (its lookup keys). An identifier is
 * what plan.py's `_NAME` (`[A-Za-z_][A-Za-z0-9_]*`, ASCII only) finds: a run of ASCII
 * letters, digits and `_` without its leading digits; any other character separates. The
 * Python way gathered the distinct texts, joined them with spaces and ran the regex over the
 * join; here each text object is scanned once per call and a text that is one identifier
 * (`len`, `self`) is added as it is, without a copy.
 */
#include "core.h"

enum { MODE_STR = 0, MODE_PAIRS = 1, MODE_STRS = 2 };

static unsigned char word_char[256]; /* 1: letter or `_`, 2: digit (Latin-1 too: 0) */

static void init_table(void) {
    if (word_char['_']) return;
    for (int c = 'a'; c <= 'z'; c++) word_char[c] = 1;
    for (int c = 'A'; c <= 'Z'; c++) word_char[c] = 1;
    for (int c = '0'; c <= '9'; c++) word_char[c] = 2;
    word_char['_'] = 1;
}

static inline int char_class(Py_UCS4 ch) { return ch < 128 ? word_char[ch] : 0; }

/* Each call of names_of is a generation: a name or a text marked with the current one was
 * met by this call already (no set lookup, no hash of a text to know it). */
static uint32_t generation;

/* The identifiers made so far, by their characters: the same few thousand names (`self`,
 * `assertEqual`, `models`) are cut out of most texts of every file, and each cut made a
 * new string, hashed it (siphash) to add it to a set where it mostly was already, and freed
 * it. Here a name met before is the string made the first time (its hash kept), found by a
 * cheap hash of its characters, and one added by this call already is not added again.
 * Which equal string a set holds does not matter to it nor to marshal (none is interned: a
 * text added as it is stays the caller's, never kept here). The table is emptied when full:
 * its memory stays bounded. */
#define NAMES_SLOTS (1 << 16) /* a power of two */
#define NAMES_MAX (NAMES_SLOTS / 2)
typedef struct {
    PyObject *name;
    uint32_t hash;
    uint32_t added; /* the generation that last added it */
} made_t;
static made_t names_made[NAMES_SLOTS];
static Py_ssize_t names_count;

static void names_forget(void) {
    for (Py_ssize_t i = 0; i < NAMES_SLOTS; i++) Py_CLEAR(names_made[i].name);
    memset(names_made, 0, sizeof names_made);
    names_count = 0;
}

/* The text objects this call scanned (by address; the rows hold them while it runs): a
 * text that repeats (`self.assertEqual`, `len`) is one object in most files (marshal's refs,
 * the shared values of make_projects), and a Python set of the texts seen hashed each
 * (siphash: texts are new strings). An equal text that is another object is scanned again,
 * finding names already added. Past its bound it records no more (the texts are scanned). */
#define SEEN_SLOTS (1 << 14)
#define SEEN_MAX (SEEN_SLOTS / 2)
static struct {
    PyObject *text;
    uint32_t gen;
} seen_texts[SEEN_SLOTS];
static Py_ssize_t seen_count;

/* 1 when `text` was scanned by this call already, else it is recorded and 0 */
static int seen_before(PyObject *text) {
    size_t h = ((size_t)text >> 4) * 0x9E3779B97F4A7C15u;
    size_t slot = (h >> 40) & (SEEN_SLOTS - 1);
    for (;;) {
        if (seen_texts[slot].gen != generation) break;
        if (seen_texts[slot].text == text) return 1;
        slot = (slot + 1) & (SEEN_SLOTS - 1);
    }
    if (seen_count >= SEEN_MAX) return 0;
    seen_texts[slot].text = text;
    seen_texts[slot].gen = generation;
    seen_count++;
    return 0;
}

/* The list the current call appends each name it adds to `out` to (NULL: none asked): the
 * names in the order the scan first met them, an order the facts alone fix (a set's depends
 * on the strings' hashes, random per process): what the lookup keys' blob writes unsorted. */
static PyObject *order_out;

/* `name` into `out` (and `order_out` when the set did not hold it) */
static int put_name(PyObject *out, PyObject *name) {
    if (order_out == NULL) return PySet_Add(out, name);
    Py_ssize_t before = PySet_GET_SIZE(out);
    if (PySet_Add(out, name) < 0) return -1;
    /* (a name this call added may be met again as new after names_forget: not twice) */
    return PySet_GET_SIZE(out) > before ? PyList_Append(order_out, name) : 0;
}

/* add the name `chars[0:n]` (ASCII, FNV-1a hash `h`) to `out` unless this call added it;
 * `whole`: the text that is that name, added as it is when this call has not added it */
static int add_name(PyObject *out, const Py_UCS1 *chars, Py_ssize_t n, uint32_t h,
                    PyObject *whole) {
    size_t slot = h & (NAMES_SLOTS - 1);
    made_t *m;
    for (;;) {
        m = &names_made[slot];
        if (m->name == NULL) break;
        if (m->hash == h && PyUnicode_GET_LENGTH(m->name) == n &&
            memcmp(PyUnicode_1BYTE_DATA(m->name), chars, (size_t)n) == 0) {
            if (m->added == generation) return 0;
            m->added = generation;
            /* (the name made, its hash known, for a text marshal writes the same way) */
            if (whole != NULL && !PyUnicode_CHECK_INTERNED(whole)) whole = NULL;
            return put_name(out, whole != NULL ? whole : m->name);
        }
        slot = (slot + 1) & (NAMES_SLOTS - 1);
    }
    /* (as a substring is made: a one-character name is CPython's own, interned, string,
     * which marshal writes with another code) */
    PyObject *name = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, chars, n);
    if (name == NULL) return -1;
    if (names_count >= NAMES_MAX) {
        names_forget();
        slot = h & (NAMES_SLOTS - 1);
        m = &names_made[slot];
    }
    m->name = name; /* (the table's reference) */
    m->hash = h;
    m->added = generation;
    names_count++;
    return put_name(out, whole != NULL ? whole : name);
}

/* add the identifiers of `text` to `out` */
static int scan(PyObject *out, PyObject *text) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return -1;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_UCS1 buf[256];
    Py_ssize_t i = 0;
    if (kind == PyUnicode_1BYTE_KIND) { /* (nearly every text) */
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        while (i < n) {
            int cls = word_char[p[i]];
            if (cls == 0) {
                i++;
                continue;
            }
            while (i < n && word_char[p[i]] == 2) i++; /* leading digits */
            Py_ssize_t first = i;
            uint32_t h = 2166136261u; /* FNV-1a over the characters */
            while (i < n && word_char[p[i]] != 0) h = (h ^ p[i++]) * 16777619u;
            if (first == i) continue; /* digits alone: no identifier */
            PyObject *whole = first == 0 && i == n && PyUnicode_CheckExact(text) ? text : NULL;
            if (add_name(out, p + first, i - first, h, whole) < 0) return -1;
        }
        return 0;
    }
    while (i < n) { /* wider texts: their identifiers are ASCII all the same */
        if (char_class(PyUnicode_READ(kind, data, i)) == 0) {
            i++;
            continue;
        }
        while (i < n && char_class(PyUnicode_READ(kind, data, i)) == 2) i++;
        Py_ssize_t first = i;
        while (i < n && char_class(PyUnicode_READ(kind, data, i)) != 0) i++;
        if (first == i) continue;
        Py_ssize_t len = i - first;
        Py_UCS1 *chars = len <= (Py_ssize_t)sizeof buf ? buf : PyMem_Malloc((size_t)len);
        if (chars == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        uint32_t h = 2166136261u;
        for (Py_ssize_t k = 0; k < len; k++) {
            chars[k] = (Py_UCS1)PyUnicode_READ(kind, data, first + k);
            h = (h ^ chars[k]) * 16777619u;
        }
        int rc = add_name(out, chars, len, h, NULL); /* (never the whole text: not ASCII) */
        if (chars != buf) PyMem_Free(chars);
        if (rc < 0) return -1;
    }
    return 0;
}

/* scan `text` unless this call scanned it */
static int text_in(PyObject *out, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "names_of: a text is %.80s, not str", Py_TYPE(text)->tp_name);
        return -1;
    }
    if (seen_before(text)) return 0;
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

static int texts_of(PyObject *out, PyObject *value, int mode) {
    if (mode == MODE_STR) return text_in(out, value);
    PyObject *items = PySequence_Fast(value, "names_of: a field is not a sequence");
    if (items == NULL) return -1;
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    PyObject **item = PySequence_Fast_ITEMS(items);
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        if (mode == MODE_STRS) {
            rc = text_in(out, item[k]);
            continue;
        }
        PyObject *second = field_of(item[k], 1); /* (position or name, text) */
        if (second == NULL) {
            rc = -1;
            break;
        }
        rc = text_in(out, second);
        Py_DECREF(second);
    }
    Py_DECREF(items);
    return rc;
}

static int rows_in(PyObject *out, PyObject *rows, Py_ssize_t field, int mode) {
    PyObject *fast = PySequence_Fast(rows, "names_of: rows is not a sequence");
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **row = PySequence_Fast_ITEMS(fast);
    int rc = 0;
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        PyObject *value = field_of(row[k], field);
        if (value == NULL) {
            rc = -1;
            break;
        }
        rc = texts_of(out, value, mode);
        Py_DECREF(value);
    }
    Py_DECREF(fast);
    return rc;
}

/* names_of(rows, field, mode[, rows, field, mode ...][, order]) -> set; `order`: a list the
 * names are appended to as first met */
PyObject *core_names_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs % 3 == 1 && PyList_CheckExact(args[nargs - 1])) {
        order_out = args[--nargs];
    } else if (nargs % 3 != 0) {
        PyErr_SetString(PyExc_TypeError, "names_of: (rows, field, mode) triples expected");
        return NULL;
    } else {
        order_out = NULL;
    }
    init_table();
    if (++generation == 0) { /* (wrapped: no mark may look current) */
        for (Py_ssize_t i = 0; i < NAMES_SLOTS; i++) names_made[i].added = 0;
        for (Py_ssize_t i = 0; i < SEEN_SLOTS; i++) seen_texts[i].gen = 0;
        generation = 1;
    }
    seen_count = 0;
    PyObject *out = PySet_New(NULL);
    if (out == NULL) {
        order_out = NULL;
        return NULL;
    }
    for (Py_ssize_t a = 0; a < nargs; a += 3) {
        Py_ssize_t field = PyLong_AsSsize_t(args[a + 1]);
        long mode = PyLong_AsLong(args[a + 2]);
        if ((field == -1 || mode == -1) && PyErr_Occurred()) goto fail;
        if (mode != MODE_STR && mode != MODE_PAIRS && mode != MODE_STRS) {
            PyErr_Format(PyExc_ValueError, "names_of: unknown mode %ld", mode);
            goto fail;
        }
        if (field < 0) {
            PyErr_SetString(PyExc_ValueError, "names_of: negative field");
            goto fail;
        }
        if (rows_in(out, args[a], field, (int)mode) < 0) goto fail;
    }
    order_out = NULL; /* (borrowed for the call only) */
    return out;
fail:
    order_out = NULL;
    Py_DECREF(out);
    return NULL;
}

/* whether the part of `text` after its last `.` (all of it without one) is one of the strs
 * of the tuple `lasts` (1, 0, -1) */
static int last_part_in(PyObject *text, PyObject *lasts) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t dot = PyUnicode_FindChar(text, '.', 0, n, -1);
    if (dot == -2) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lasts); i++) {
        PyObject *last = PyTuple_GET_ITEM(lasts, i);
        if (!PyUnicode_Check(last)) {
            PyErr_SetString(PyExc_TypeError, "rows_prefixed: a last part is no str");
            return -1;
        }
        if (PyUnicode_GET_LENGTH(last) != n - dot - 1) continue;
        Py_ssize_t same = PyUnicode_Tailmatch(text, last, dot + 1, n, 1);
        if (same != 0) return same < 0 ? -1 : 1;
    }
    return 0;
}

/* rows_prefixed(rows, field, prefix, need[, lasts]) -> list: the rows whose item `field` is a
 * str that starts with `prefix`, when need >= 0 whose item `need` is true, and given the tuple
 * `lasts` whose text's last dotted part is one of them, in their order (indexer/plan.py binder_names' `self.` calls and bindings: a Python loop's test per fact of
 * every file of a full build, for the few it keeps). */
PyObject *core_rows_prefixed(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "rows_prefixed(rows, field, prefix, need[, lasts])");
        return NULL;
    }
    PyObject *lasts = nargs == 5 && args[4] != Py_None ? args[4] : NULL;
    if (lasts != NULL && !PyTuple_Check(lasts)) {
        PyErr_SetString(PyExc_TypeError, "rows_prefixed: lasts is no tuple");
        return NULL;
    }
    PyObject *rows = args[0], *prefix = args[2];
    Py_ssize_t field = PyLong_AsSsize_t(args[1]), need = PyLong_AsSsize_t(args[3]);
    if ((field == -1 || need == -1) && PyErr_Occurred()) return NULL;
    if (!PyUnicode_Check(prefix)) {
        PyErr_SetString(PyExc_TypeError, "rows_prefixed: the prefix is no str");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(prefix) < 0) return NULL;
#endif
    /* (a one-byte prefix against one-byte texts, nearly all: compared as bytes) */
    Py_ssize_t plen = PyUnicode_GET_LENGTH(prefix);
    const Py_UCS1 *pchars =
        PyUnicode_KIND(prefix) == PyUnicode_1BYTE_KIND ? PyUnicode_1BYTE_DATA(prefix) : NULL;
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
        Py_ssize_t match;
        if (pchars != NULL && PyUnicode_IS_READY(text) &&
            PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
            match = PyUnicode_GET_LENGTH(text) >= plen &&
                    memcmp(PyUnicode_1BYTE_DATA(text), pchars, (size_t)plen) == 0;
        else if ((match = PyUnicode_Tailmatch(text, prefix, 0, PY_SSIZE_T_MAX, -1)) < 0)
            goto fail;
        if (!match) continue;
        if (lasts != NULL) {
            int last = last_part_in(text, lasts);
            if (last < 0) goto fail;
            if (!last) continue;
        }
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

/* Whether a decorator's text names pytest's fixture: its last dotted part, a `()` at its end
 * aside, is `fixture` (lang/python/pytest_names.py is_fixture). */
static int names_fixture(PyObject *d) {
    if (!PyUnicode_Check(d)) {
        PyErr_Format(PyExc_TypeError, "test_uses: a decorator is %.80s", Py_TYPE(d)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(d) < 0) return -1;
#endif
    static const char want[] = "fixture";
    const Py_ssize_t wn = (Py_ssize_t)(sizeof want - 1);
    int kind = PyUnicode_KIND(d);
    const void *data = PyUnicode_DATA(d);
    Py_ssize_t end = PyUnicode_GET_LENGTH(d);
    if (end >= 2 && PyUnicode_READ(kind, data, end - 2) == '(' &&
        PyUnicode_READ(kind, data, end - 1) == ')')
        end -= 2;
    Py_ssize_t first = end - wn;
    if (first < 0 || (first > 0 && PyUnicode_READ(kind, data, first - 1) != '.')) return 0;
    for (Py_ssize_t i = 0; i < wn; i++)
        if (PyUnicode_READ(kind, data, first + i) != (Py_UCS4)want[i]) return 0;
    return 1;
}

/* add a parameter's name without its leading `*`s (str.lstrip("*")) */
static int add_param(PyObject *out, PyObject *pair) {
    PyObject *name = field_of(pair, 0);
    if (name == NULL) return -1;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "test_uses: a parameter is %.80s", Py_TYPE(name)->tp_name);
        Py_DECREF(name);
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(name), k = 0;
    while (k < n && PyUnicode_ReadChar(name, k) == '*') k++;
    if (k > 0 || !PyUnicode_CheckExact(name)) Py_SETREF(name, PyUnicode_Substring(name, k, n));
    int rc = name == NULL ? -1 : PySet_Add(out, name);
    Py_XDECREF(name);
    return rc;
}

/* test_uses(symbols, calls, fields, function_kinds, marks, autouse) -> (set, bool): what
 * lang/python/pytest_names.py implicit_names reads of the fixtures a file's tests request,
 * in its order: the parameters of each test and fixture function (`autouse` for a test),
 * the positional literals of calls to a mark (`usefixtures("db")`, the last dotted part of
 * the callee in the tuple `marks`) and the literal at position 1 of `getattr`; whether any
 * function is a fixture. `fields`: (SymbolFact kind, is_test, params, decorators; CallFact
 * callee, literals). Every file of a full build passes here (its lookup keys): the Python
 * loop over every symbol and call was a quarter of them. */
PyObject *core_test_uses(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 6 || !PyTuple_Check(args[2]) || PyTuple_GET_SIZE(args[2]) != 6 ||
        !PyAnySet_Check(args[3]) || !PyTuple_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "test_uses(symbols, calls, fields, function_kinds, marks, autouse)");
        return NULL;
    }
    Py_ssize_t f[6];
    for (int i = 0; i < 6; i++) {
        f[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(args[2], i));
        if (f[i] == -1 && PyErr_Occurred()) return NULL;
    }
    PyObject *kinds = args[3], *marks = args[4], *autouse = args[5];
    int fixtures = 0;
    PyObject *out = PySet_New(NULL), *syms = NULL, *calls = NULL, *getattr_ = NULL;
    if (out == NULL) return NULL;
    syms = PySequence_Fast(args[0], "test_uses: symbols is not a sequence");
    if (syms == NULL) goto fail;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(syms); k++) {
        PyObject *s = PySequence_Fast_GET_ITEM(syms, k);
        if (!PyTuple_Check(s) || PyTuple_GET_SIZE(s) <= f[0] || PyTuple_GET_SIZE(s) <= f[1] ||
            PyTuple_GET_SIZE(s) <= f[2] || PyTuple_GET_SIZE(s) <= f[3]) {
            PyErr_SetString(PyExc_TypeError, "test_uses: a symbol is no tuple of those fields");
            goto fail;
        }
        int is_fn = PySet_Contains(kinds, PyTuple_GET_ITEM(s, f[0]));
        if (is_fn <= 0) {
            if (is_fn < 0) goto fail;
            continue;
        }
        int test = PyObject_IsTrue(PyTuple_GET_ITEM(s, f[1]));
        if (test < 0) goto fail;
        PyObject *decorators = PyTuple_GET_ITEM(s, f[3]);
        int fixture = 0;
        if (!test || !fixtures) { /* (what a test is aside, only whether any is a fixture) */
            PyObject *ds = PySequence_Fast(decorators, "test_uses: decorators");
            if (ds == NULL) goto fail;
            for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ds) && !fixture; i++)
                fixture = names_fixture(PySequence_Fast_GET_ITEM(ds, i));
            Py_DECREF(ds);
            if (fixture < 0) goto fail;
            fixtures |= fixture;
        }
        if (!test && !fixture) continue;
        PyObject *params = PySequence_Fast(PyTuple_GET_ITEM(s, f[2]), "test_uses: params");
        if (params == NULL) goto fail;
        int rc = 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(params) && rc == 0; i++)
            rc = add_param(out, PySequence_Fast_GET_ITEM(params, i));
        Py_DECREF(params);
        if (rc < 0 || (test && PySet_Add(out, autouse) < 0)) goto fail;
    }
    calls = PySequence_Fast(args[1], "test_uses: calls is not a sequence");
    getattr_ = PyUnicode_InternFromString("getattr");
    if (calls == NULL || getattr_ == NULL) goto fail;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(calls); k++) {
        PyObject *c = PySequence_Fast_GET_ITEM(calls, k);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) <= f[4] || PyTuple_GET_SIZE(c) <= f[5]) {
            PyErr_SetString(PyExc_TypeError, "test_uses: a call is no tuple of those fields");
            goto fail;
        }
        PyObject *literals = PyTuple_GET_ITEM(c, f[5]);
        /* (few calls have literal arguments) */
        int any = PyTuple_CheckExact(literals) ? PyTuple_GET_SIZE(literals) > 0
                                               : PyObject_IsTrue(literals);
        if (any <= 0) {
            if (any < 0) goto fail;
            continue;
        }
        PyObject *callee = PyTuple_GET_ITEM(c, f[4]);
        if (!PyUnicode_Check(callee)) {
            PyErr_SetString(PyExc_TypeError, "test_uses: a callee is no str");
            goto fail;
        }
        int mark = 0, at = -1; /* at: -1 any int position, else that position */
        Py_ssize_t n = PyUnicode_GET_LENGTH(callee);
        Py_ssize_t dot = PyUnicode_FindChar(callee, '.', 0, n, -1);
        if (dot == -2) goto fail;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(marks) && !mark; i++) {
            PyObject *m = PyTuple_GET_ITEM(marks, i); /* (the last dotted part, that mark) */
            if (!PyUnicode_Check(m) || PyUnicode_GET_LENGTH(m) != n - dot - 1) continue;
            mark = (int)PyUnicode_Tailmatch(callee, m, dot + 1, n, 1);
            if (mark < 0) goto fail;
        }
        if (!mark) {
            if (n != PyUnicode_GET_LENGTH(getattr_) || PyUnicode_Compare(callee, getattr_) != 0) {
                if (PyErr_Occurred()) goto fail;
                continue;
            }
            at = 1;
        }
        PyObject *lits = PySequence_Fast(literals, "test_uses: literals");
        if (lits == NULL) goto fail;
        int rc = 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(lits) && rc == 0; i++) {
            PyObject *pair = PySequence_Fast_GET_ITEM(lits, i);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_SetString(PyExc_TypeError, "test_uses: a literal is no (key, text)");
                rc = -1;
                break;
            }
            PyObject *key = PyTuple_GET_ITEM(pair, 0);
            int take;
            if (at < 0) {
                take = PyLong_Check(key);
            } else {
                PyObject *want = PyLong_FromLong(at);
                take = want == NULL ? -1 : PyObject_RichCompareBool(key, want, Py_EQ);
                Py_XDECREF(want);
            }
            if (take < 0) rc = -1;
            else if (take) rc = PySet_Add(out, PyTuple_GET_ITEM(pair, 1));
        }
        Py_DECREF(lits);
        if (rc < 0) goto fail;
    }
    Py_DECREF(syms);
    Py_DECREF(calls);
    Py_DECREF(getattr_);
    PyObject *result = Py_BuildValue("(NO)", out, fixtures ? Py_True : Py_False);
    return result;
fail:
    Py_XDECREF(syms);
    Py_XDECREF(calls);
    Py_XDECREF(getattr_);
    Py_DECREF(out);
    return NULL;
}
