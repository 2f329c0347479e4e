"""The resolution engine the languages share (lang/engine/project.py says what it does).

ENGINE_VERSION is part of the runner identity: bump it when the engine makes other edges
from the same facts (a digest of the engine's code is in the identity too).
"""

# 2: a relay edge never hides a same-confidence edge of its pair (resolved.better)
ENGINE_VERSION = 2
