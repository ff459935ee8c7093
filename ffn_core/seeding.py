"""Deterministic torch runs: one seed, one thread, deterministic kernels.

Every training in ffn_core runs inside :func:`deterministic`, so the same code gives the
same numbers on every run (on the same library versions).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import numpy as np
import torch

# One thread: our models are tiny, so a second thread buys nothing, and while video renders
# keep the two cores busy torch's worker threads spin-wait: 100 training steps of the
# memory model took 1 s on one thread and 10-40 s on two.
MAX_THREADS = 1


@contextlib.contextmanager
def limited_threads(threads: int = MAX_THREADS) -> Iterator[None]:
    """Run torch on at most ``threads`` threads; restore the previous count after."""
    previous = torch.get_num_threads()
    torch.set_num_threads(min(threads, previous))
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextlib.contextmanager
def deterministic(seed: int) -> Iterator[torch.Generator]:
    """Seed python, numpy and torch; cap torch threads; restore the previous settings after.

    Yields a torch.Generator seeded with ``seed`` for explicit use.
    """
    previous_threads = torch.get_num_threads()
    previous_deterministic = torch.are_deterministic_algorithms_enabled()
    torch_state = torch.random.get_rng_state()
    numpy_state = np.random.get_state()
    python_state = random.getstate()
    torch.set_num_threads(min(MAX_THREADS, previous_threads))
    torch.use_deterministic_algorithms(True, warn_only=True)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    try:
        yield torch.Generator().manual_seed(seed)
    finally:
        torch.set_num_threads(previous_threads)
        torch.use_deterministic_algorithms(previous_deterministic)
        torch.random.set_rng_state(torch_state)
        np.random.set_state(numpy_state)
        random.setstate(python_state)
