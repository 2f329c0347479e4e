"""Go's table of library entry points: functions the standard library calls back (data only;
the shape is lang/engine/entrypoints.py, applied by the engine's `library_arguments`; see
docs/entrypoints.md). Positions count the call's arguments after the receiver."""

from __future__ import annotations

from codeimpact.indexer.lang.engine.entrypoints import CallsArgument, EntryTable

TABLE = EntryTable(
    (
        CallsArgument(("testing.T.Run", "testing.B.Run"), 1, why="a subtest runs the function"),
        CallsArgument(("testing.F.Fuzz",), 0, why="the fuzz target runs per input"),
        CallsArgument(("sync.Once.Do", "sync.WaitGroup.Go"), 0, why="runs the function"),
        CallsArgument(("sort.Slice", "sort.SliceStable", "slices.SortFunc",
                       "slices.SortStableFunc", "slices.IndexFunc", "slices.ContainsFunc"), 1,
                      why="calls the comparison / predicate"),
        CallsArgument(("strings.Map",), 0, why="calls the mapping per rune"),
        CallsArgument(("strings.FieldsFunc", "strings.IndexFunc", "strings.TrimFunc"), 1,
                      why="calls the predicate per rune"),
        CallsArgument(("time.AfterFunc",), 1, why="runs the function when the timer fires"),
        CallsArgument(("net/http.HandleFunc", "net/http.ServeMux.HandleFunc", "http.HandleFunc",
                       "http.ServeMux.HandleFunc"), 1,
                      why="the server calls the handler for each request"),
        CallsArgument(("flag.Func",), 2, why="the flag set calls fn with the flag's value"),
        CallsArgument(("golang.org/x/sync/errgroup.Group.Go", "errgroup.Group.Go"), 0,
                      why="the group runs the function"),
    ),
)  # fmt: skip
