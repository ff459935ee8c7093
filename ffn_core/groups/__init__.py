"""Groups of audited numbers and datasets, one module each, found by `ffn_core.registry`.

A module here defines `PREFIX = "needles"` (every key it provides starts with "needles.";
a tuple when its keys start with more than one word, as the worked examples' do) and
`def numbers() -> tuple[Number, ...]`, `def datasets() -> tuple[Dataset, ...]` or both,
computed from `ffn_core`'s solvers. A dataset is a rich result a scene draws (a tray of
neurons, a sweep of lines); the registry lists it with its shape and SHA-256. Keep each
module's imports of heavy solvers inside those functions, so asking for one key computes
only its own group; a module named for its prefix is found without importing the others.
"""

# The order `ffn-video numbers` lists the groups in (that of `all_numbers()`): these first,
# as the registry has always listed them, then every other group by module name.
LISTED_FIRST = ("params", "swiglu", "examples", "xor", "approx", "memory", "pretrained", "collapse")
