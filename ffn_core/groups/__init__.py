"""Groups of audited numbers, one module each, found by `ffn_core.numbers` at import.

A module here defines `PREFIX = "needles"` (every key it provides starts with
"needles.") and `def numbers() -> tuple[Number, ...]`, computed from `ffn_core`'s
solvers. Keep each module's imports of heavy solvers inside `numbers()`, so asking for
one key computes only its own group.
"""
