"""The native extensions: the traversal core (`traversal`, over CSR arrays), the query
runner and fact engine of extraction (`runner`, `_syntax`), the Python resolver's hot
paths.

Nothing is imported here: `indexer` reaches `native.runner` on every run, and a package
initialiser that imported the traversal core would bring numpy (a third of a no-op
`analyze`'s start-up) into runs that never traverse a graph.
"""
