"""The graph floor: the database, its files, the generations (see docs/architecture.md)."""

# The environment that keeps numpy's OpenBLAS (numpy comes with pyarrow and our arrays) to one
# thread: it starts a thread per core as it loads, which spins ~0.05-0.1 s of CPU waiting for
# work, and nothing here does linear algebra. Read only as numpy is first imported: the
# `graph` command sets it for itself (codeimpact/cli.py), the database writer's interpreter
# is started with it (graph/full_write.py); a value the caller set wins. (Here: the package
# is imported by both already, so the constant costs neither an import.)
QUIET_BLAS = {"OPENBLAS_NUM_THREADS": "1"}
