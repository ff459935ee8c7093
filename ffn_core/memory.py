"""Facts in memory, and editing one: a tiny transformer trained here on short Spanish facts.

The model (``ffn_core.modules.DecoderLM``: 2 pre-norm blocks, ReLU FFNs, learned
positions) learns to finish prompts such as "el limón es" -> "ácido". We then read it:

* its FFN as keys and values (which neurons fire for each subject, and which answer words
  each neuron's value pushes up when read through the output head; the last block's FFN
  at the last word reads most clearly);
* its attention on a sentence, with the real Q.K scores, the scale, the causal mask and
  the softmax, per head;
* a rank-one edit of one FFN's output matrix, in the manner of ROME (Meng et al. 2022):
  the key is the FFN's hidden activation at the subject's position; a new value is found
  by gradient descent so the model gives the new answer; the update
  ``W += (v_new - W k) (C^-1 k)^T / (k^T C^-1 k)`` touches only that key's direction
  (``C`` = second moment of all the facts' keys), so the other facts keep their answers.

Everything is seeded and trains in a few seconds on one CPU thread. This module holds the
facts and the result types; the torch code lives in ``ffn_core.memory_model`` and is
imported only when a result is not in the cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffn_core.attention import AttentionTrace
from ffn_core.cache import disk_cached
from ffn_core.params import ModelConfig

# (prompt, answer). Subjects are single words at position 1; answers are single words.
FACTS: tuple[tuple[str, str], ...] = (
    ("el limón es", "ácido"),
    ("el azúcar es", "dulce"),
    ("la nieve es", "blanca"),
    ("el carbón es", "negro"),
    ("el fuego es", "caliente"),
    ("el hielo es", "frío"),
    ("el café es", "amargo"),
    ("el mar es", "salado"),
    ("el sena cruza", "parís"),
    ("el támesis cruza", "londres"),
    ("el tíber cruza", "roma"),
    ("el danubio cruza", "viena"),
    ("la abeja hace", "miel"),
    ("la vaca da", "leche"),
    ("la gallina pone", "huevos"),
    ("el perro come", "carne"),
)
SUBJECT_POSITION = 1  # "el limón es": the subject is the second word

# The edit the lecture shows: the lemon becomes sweet.
EDIT_PROMPT = "el limón es"
EDIT_NEW_ANSWER = "dulce"
TRAIN_STEPS = 300  # full-batch AdamW steps
EDIT_LAYER = 0  # the first block's FFN, read at the subject's position (as ROME does)


def tiny_config(vocab_size: int) -> ModelConfig:
    """The memory model's architecture (not a published model)."""
    return ModelConfig(
        name="memory_tiny",
        display_name="transformer de hechos",
        vocab_size=vocab_size,
        d_model=32,
        n_layers=2,
        n_heads=2,
        n_kv_heads=2,
        d_ff=128,
        ffn_kind="relu",
        max_positions=8,
        norm_kind="layernorm",
        tied_embeddings=False,
        attention_bias=True,
        ffn_bias=True,
    )


def vocabulary(facts: tuple[tuple[str, str], ...] = FACTS) -> tuple[str, ...]:
    """Every word of the facts, in first-seen order (the token ids)."""
    words: list[str] = []
    for prompt, answer in facts:
        for word in (*prompt.split(), answer):
            if word not in words:
                words.append(word)
    return tuple(words)


@dataclass(frozen=True)
class Recall:
    """The model's answer to one prompt: top word and its probability (0..1)."""

    prompt: str
    expected: str
    predicted: str
    probability: float
    correct: bool


@dataclass(frozen=True)
class NeuronReading:
    """One FFN neuron read as a key-value pair for one subject.

    ``activation`` is its ReLU output at the subject's position (how strongly the key
    matched); ``promotes`` are the words its value vector pushes up most when read through
    the output head (a "logit lens" reading, after the final norm's scale).
    """

    neuron: int
    activation: float
    promotes: tuple[str, ...]


@dataclass(frozen=True)
class SubjectNeurons:
    """The neurons of the read FFN that fire most for one subject."""

    subject: str
    prompt: str
    active_share: float  # share of the FFN's neurons active (> 0) at that position, 0..1
    top: tuple[NeuronReading, ...]


@dataclass(frozen=True)
class EditResult:
    """A rank-one edit of one FFN's output matrix that changes one fact.

    ``update_rank`` is the numerical rank of the weight change (1). ``others_unchanged_share``
    is the share of the *other* facts whose answer is the same after the edit (0..1).
    """

    prompt: str
    old_answer: str
    new_answer: str
    layer: int
    before: Recall
    after: Recall
    target_changed: bool
    others_before: tuple[Recall, ...]
    others_after: tuple[Recall, ...]
    others_unchanged_share: float
    update_rank: int
    update_norm: float  # Frobenius norm of the weight change
    weight_norm: float  # Frobenius norm of the matrix before the edit


@dataclass(frozen=True)
class MemoryResult:
    """The trained fact model, read and edited."""

    facts: tuple[tuple[str, str], ...]
    vocab: tuple[str, ...]
    config: ModelConfig
    n_parameters: int
    train_steps: int
    final_loss: float
    recall: tuple[Recall, ...]
    recall_accuracy: float  # share of facts answered correctly, 0..1
    subject_neurons: tuple[SubjectNeurons, ...]  # first FFN, at the subject (the edited memory)
    answer_neurons: tuple[SubjectNeurons, ...]  # last FFN, at the last word (reads cleanly)
    answer_neuron_share: float  # facts whose answer is the top word of one of their top neurons
    attention: tuple[AttentionTrace, ...]  # one per layer, on ATTENTION_SENTENCE
    edit: EditResult


ATTENTION_SENTENCE = "el limón es ácido"


@disk_cached
def solve(seed: int = 0) -> MemoryResult:
    """Train the fact model, read its FFN and attention, then edit one fact."""
    from ffn_core.memory_model import build_result

    return build_result(seed)
