"""Ground truth from real test suites (a profile hook over pytest) and the scorers that
judge codeimpact's graph against it; see benchmarks/README.md and trace_suite.py."""
