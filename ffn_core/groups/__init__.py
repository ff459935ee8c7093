"""Groups of audited numbers and datasets, one module each, found by `ffn_core.numbers` at import.

A module here defines `PREFIX = "needles"` (every key it provides starts with "needles.")
and `def numbers() -> tuple[Number, ...]`, `def datasets() -> tuple[Dataset, ...]` or both,
computed from `ffn_core`'s solvers. A dataset is a rich result a scene draws (a tray of
neurons, a sweep of lines); the registry lists it with its shape and SHA-256. Keep each
module's imports of heavy solvers inside those functions, so asking for one key computes
only its own group.
"""
