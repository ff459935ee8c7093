"""The build: `pipeline.build()` and its steps (narrate, freshness, render, mix, mux, join, report),
with the build lock, signatures, failures, preflight, the display and `watch`."""
