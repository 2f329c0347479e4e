/*
 * codeimpact native traversal core.
 *
 * Traversals over a CSR graph given as four 1-d C-contiguous buffers:
 *   indptr     int64  [n + 1]   row offsets, indptr[0] == 0, indptr[n] == nnz
 *   indices    int32  [nnz]     neighbour node ids in [0, n)
 *   edge_type  uint8  [nnz]     edge type code (codes >= 32 never match a mask)
 *   confidence float32[nnz]
 *
 * No numpy C API: everything goes through the buffer protocol, with format and
 * itemsize checks. Every entry point validates its arguments itself (shapes,
 * dtypes, lengths, id ranges) and the traversals check every row offset and
 * neighbour id they read, so corrupt arrays raise ValueError instead of
 * reading out of bounds. `validate_csr` is the full O(n + nnz) check.
 *
 * Work memory comes from the raw allocators (no GIL needed) and is freed on
 * every path; the traversals themselves run with the GIL released while all
 * buffers are held.
 */
#include "core.h"

/* ------------------------------------------------------------------------- */
/* validate_csr                                                              */

static PyObject *core_validate_csr(PyObject *self, PyObject *args) {
    PyObject *ip, *ix, *et, *cf;
    csr_t c;
    int err = E_OK;
    int64_t where = 0, u, e;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOO:validate_csr", &ip, &ix, &et, &cf)) return NULL;
    if (csr_open(&c, ip, ix, et, cf) != 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (u = 0; u < c.n; u++) {
        if (!row_ok(&c, u)) {
            err = E_INDPTR;
            where = u;
            break;
        }
    }
    if (err == E_OK) {
        const uint32_t n = (uint32_t)c.n;
        for (e = 0; e < c.nnz; e++) {
            if ((uint32_t)c.indices[e] >= n) {
                err = E_INDEX;
                where = e;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    csr_close(&c);
    if (err != E_OK) {
        set_traversal_error(err, where);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------- */

static PyObject *core_version(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyUnicode_FromString("0.1.0");
}

/* line_count: the scan counts every file's lines, each extractor again: bytes.count(b"\n")
 * looks at a byte at a time (~3.6 instructions a byte, ~20 ms per pass over Django's
 * sources); compared 255 bytes at a time into a byte counter, the loop vectorises. */
static PyObject *core_line_count(PyObject *self, PyObject *arg) {
    Py_buffer b;
    (void)self;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) != 0) return NULL;
    const unsigned char *s = (const unsigned char *)b.buf;
    Py_ssize_t n = b.len, i = 0, count = 0;
    while (i < n) {
        Py_ssize_t end = n - i < 255 ? n : i + 255;
        unsigned char block = 0; /* at most 255 newlines: exact in a byte */
        for (; i < end; i++) block += s[i] == '\n';
        count += block;
    }
    if (n > 0 && s[n - 1] != '\n') count++; /* a last line without its newline */
    PyBuffer_Release(&b);
    return PyLong_FromSsize_t(count);
}

static PyMethodDef core_methods[] = {
    {"version", core_version, METH_NOARGS, "Version of the native core."},
    {"line_count", core_line_count, METH_O,
     "line_count(data) -> int: the lines of a file's bytes (its newlines, and one more when"
     " the last line has none), as data.count(b'\\n') + (data and not data.endswith(b'\\n'))"},
    {"validate_csr", core_validate_csr, METH_VARARGS,
     "validate_csr(indptr, indices, edge_type, confidence) -> None; full O(n + nnz) check."},
    {"bfs", core_bfs, METH_VARARGS,
     "bfs(indptr, indices, edge_type, confidence, sources, max_depth, type_mask, min_confidence,"
     " node_mask, limit, out_nodes, out_depths, out_parents) -> (count, truncated)"},
    {"shortest_path", core_shortest_path, METH_VARARGS,
     "shortest_path(indptr, indices, edge_type, confidence, source, target, max_depth, type_mask,"
     " min_confidence, node_mask) -> bytes of int64 node ids, or None"},
    {"strongly_connected_components", core_scc, METH_VARARGS,
     "strongly_connected_components(indptr, indices, edge_type, confidence, type_mask,"
     " min_confidence, out_labels, out_self_loop) -> number of components"},
    {"dedupe_edges", core_dedupe_edges, METH_VARARGS,
     "dedupe_edges(edges, relay_reason) -> list: one edge per (rel, src, dst), the best by"
     " indexer/resolved.py `better`, sorted"},
    {"resolved_blob", core_resolved_blob, METH_VARARGS,
     "resolved_blob(symbols, edges, unresolved, calls_total, calls_builtin) -> bytes: marshal"
     " bytes of the five, each distinct str written once; None for a value it does not write"},
    {"gather_file", core_gather_file, METH_VARARGS,
     "gather_file(g, kinds, path, external_prefix, symbols, edges) -> list: a resolved file's"
     " rows and edges appended to a full build's gathered graph (indexer/full_graph.py); the"
     " indices of the edges whose source is another file's"},
    {"invert_keys", core_invert_keys, METH_O,
     "invert_keys(blobs) -> (names, name_ends, postings, posting_ends): the files' lookup keys"
     " blobs (in their places' order) inverted into the packed names index"
     " (indexer/name_index.py); None when a blob is not of KEYS_FORMAT 1"},
    {"gather_blob", core_gather_blob, METH_VARARGS,
     "gather_blob(g, kinds, path, external_prefix, blob) -> (foreign, unresolved, total,"
     " builtin): gather_file of a resolved blob (indexer/state.py resolved_blob) read from its"
     " bytes; the other files' edges as (rel, source, target); None for a blob it does not read"},
    {"names_of", (PyCFunction)(void (*)(void))core_names_of, METH_FASTCALL,
     "names_of(rows, field, mode[, rows, field, mode ...][, order]) -> set: the identifiers of"
     " each row's field (mode 0: a str, 1: pairs whose second item is a str, 2: strs); each"
     " appended to the list `order` too, as first met"},
    {"symbol_rows", core_symbol_rows, METH_VARARGS,
     "symbol_rows(symbols, rows, edges, path, module, language, is_test, contains, unnamed,"
     " strip, row_type, edge_type): a file's SymbolFacts as rows and CONTAINS edges, appended"
     " (indexer/lang/python/playback.py Playback.definitions)"},
    {"typed_list", (PyCFunction)(void (*)(void))core_typed_list, METH_FASTCALL,
     "typed_list(type, items[, mask, values]) -> list: [tuple.__new__(type, x) for x in"
     " items] (FileFacts' lists decoded from marshal); the strs and ints of the fields in the"
     " bit mask `mask` made the ones the SharedValues `values` keeps for their values"},
    {"facts_loads", (PyCFunction)(void (*)(void))core_facts_loads, METH_FASTCALL,
     "facts_loads(data, spec, values) -> marshal.loads(data), its lists of facts made typed"
     " lists (spec: (type, mask, fields), the blob a list of facts; or a tuple of those or"
     " None per item of the blob's tuple), the strs and ints of the masks' fields shared into"
     " the SharedValues `values` (or None) before they are made; None: a blob it does not read"},
    {"facts_dumps", (PyCFunction)(void (*)(void))core_facts_dumps, METH_FASTCALL,
     "facts_dumps(items, forms) -> bytes: marshal.dumps of FileFacts.to_bytes' tuple, its lists"
     " of facts written as plain tuples without making them (forms: per item, v a value, l a"
     " list of facts, n a list of facts as a nested blob, or a bytes); None: a value it does"
     " not write as marshal does (the caller marshals)"},
    {"populate_arenas", core_populate_arenas, METH_O,
     "populate_arenas(on) -> bool: new arenas of the small-object allocator mapped with their"
     " pages populated at once (one mmap, not a page fault per page) from now on, or (off)"
     " as before; whether they were (False where they cannot be)"},
    {"arenas_populated", core_arenas_populated, METH_NOARGS,
     "arenas_populated() -> bool: whether populate_arenas() holds in this process"},
    {"rows_prefixed", (PyCFunction)(void (*)(void))core_rows_prefixed, METH_FASTCALL,
     "rows_prefixed(rows, field, prefix, need[, lasts]) -> list: the rows whose str item"
     " `field` starts with `prefix`, when need >= 0 whose item `need` is true, and given the"
     " tuple `lasts` whose last dotted part is one of them, in order"},
    {"test_uses", (PyCFunction)(void (*)(void))core_test_uses, METH_FASTCALL,
     "test_uses(symbols, calls, fields, function_kinds, marks, autouse) -> (set, bool): the"
     " fixture names a file's tests, fixtures and marks request; whether it defines a fixture"
     " (indexer/lang/python/pytest_names.py implicit_names)"},
    {"tuple_fields", core_tuple_fields, METH_VARARGS,
     "tuple_fields(cls) -> bool: the fields of a named tuple type as read-only slots over its"
     " items (specialised attribute reads); False, cls unchanged, for another kind of type"},
    {"parse_steps", core_parse_steps, METH_O,
     "parse_steps(chain) -> ((name, suffix), ...) or None: indexer/lang/python/index.py"
     " _parse_steps' answer, kept by chain"},
    {"parse_steps_cache", core_parse_steps_cache, METH_NOARGS,
     "parse_steps_cache() -> dict: the steps parse_steps keeps, by chain"},
    {"index_passes", core_index_passes, METH_VARARGS,
     "index_passes(fi, symbols, imports, bindings, returns[, by_params]) -> (adds, aliases,"
     " item_aliases, unsorted): index_file's passes over a Python file's facts into fi's"
     " tables; unsorted: the lists of fi.names out of line order"
     " (indexer/lang/python/index.py)"},
    {"chain_method", core_chain_method, METH_VARARGS,
     "chain_method(cls, kit) -> the method eval_chain of cls: values.py `_eval_chain` in C;"
     " kit: (MAX_DEPTH, parse_steps, fold, ALTS)"},
    {"lookup_method", core_lookup_method, METH_VARARGS,
     "lookup_method(cls, kit) -> the method lookup_name of cls: names.py `_lookup_name` in C;"
     " kit: (MAX_DEPTH, CLASS_FIRST, SymbolFact's positions of kind, name, signature,"
     " decorators)"},
    {"playback_calls", (PyCFunction)(void (*)(void))core_playback_calls, METH_FASTCALL,
     "playback_calls(project, fi, calls, edges, out, lookups, table, srcs, kit): playback.py"
     " `_resolve_calls`' loop over a Python file's call sites (the played ones here, the rest"
     " called back)"},
    {"index_calls_pass", core_index_calls_pass, METH_VARARGS,
     "index_calls_pass(fi, calls, param_names, param_items, aliases, item_aliases, kit):"
     " index_calls' loop over a Python file's calls into fi's call tables"
     " (indexer/lang/python/index.py)"},
    {"csr_from_codes", core_csr_from_codes, METH_VARARGS,
     "csr_from_codes(codes, confs, n_nodes) -> the forward and reverse CSR arrays as 8 bytes,"
     " or None (native/core_arrays.c)"},
    {"patch_codes", core_patch_codes, METH_VARARGS,
     "patch_codes(codes, confs, removed, added, moves) -> (codes, confs) bytes"},
    {"rank_order", core_rank_order, METH_O,
     "rank_order(rank) -> int32 bytes of the node at each rank, or None"},
    {"patched_ranks", core_patched_ranks, METH_VARARGS,
     "patched_ranks(old_rank, gone_ids, moves, places, newcomer_ids, n_new) -> int32 bytes"},
    {"tables_build", core_tables_build, METH_VARARGS,
     "tables_build(paths, summaries, methods, subclasses, reads) -> True: Tables.build's loop"
     " (indexer/lang/python/tables.py) into the three dicts; None for a summary of another"
     " shape (the dicts may hold entries then)"},
    {"buckets_split", core_buckets_split, METH_VARARGS,
     "buckets_split(table, per) -> (buckets, crcs): a dict's items `per` at a time as"
     " marshal.dumps of a dict each, and each key's CRC-32 (utf-8, surrogatepass) as uint32"
     " bytes (indexer/lang/engine/buckets.py _chunks)"},
    {"crc_index", core_crc_index, METH_VARARGS,
     "crc_index(crcs, per) -> (crc, at): the uint32 CRCs sorted, and each one's bucket (its"
     " item // per), equal CRCs in item order, as uint32 bytes (buckets.py _index)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "codeimpact native traversal core", -1, core_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&SharedValues_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m != NULL && PyModule_AddObjectRef(m, "SharedValues", (PyObject *)&SharedValues_Type) < 0)
        Py_CLEAR(m);
    return m;
}
