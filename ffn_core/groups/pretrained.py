"""Numbers of one word through a pretrained model's FFN (MiniLM, ``ffn_core.pretrained.solve``):
how many neurons fire, the strongest, and the unpicked sample the ReLU scene shows; every
neuron's pre-activation and activation is the dataset ``pretrained.minilm.ffn``."""

from __future__ import annotations

from ffn_core.registry import FRACTION, WIDTH, Dataset, Number

PREFIX = "pretrained"


def numbers() -> tuple[Number, ...]:
    from ffn_core.pretrained import solve

    result = solve()
    call = "ffn_core.pretrained.solve()"
    sample = result.pre_activation[:10]
    return (
        # What the ReLU scene's caption names: the model, the word and the sentence it sits in.
        Number("pretrained.minilm.model", result.model, "name", f"{call}.model"),
        Number("pretrained.minilm.token", result.token, "word (WordPiece token)", f"{call}.token"),
        Number("pretrained.minilm.sentence", result.sentence, "sentence", f"{call}.sentence"),
        Number("pretrained.minilm.layer", result.layer, "block index (0-based)", f"{call}.layer"),
        Number("pretrained.minilm.d_model", result.d_model, WIDTH, f"{call}.d_model"),
        Number("pretrained.minilm.d_ff", result.d_ff, WIDTH, f"{call}.d_ff"),
        Number("pretrained.minilm.active_share", result.active_share, FRACTION, f"{call}.active_share"),
        Number(
            "pretrained.minilm.n_active",
            round(result.active_share * result.d_ff),
            "neurons",
            f"{call}.active_share * {call}.d_ff",
        ),
        Number("pretrained.minilm.top_neuron", result.top_neurons[0][0], "neuron index", f"{call}.top_neurons[0][0]"),
        Number("pretrained.minilm.top_activation", result.top_neurons[0][1], "activation", f"{call}.top_neurons[0][1]"),
        Number(
            "pretrained.minilm.active_share_per_token",
            result.active_share_per_token,
            FRACTION,
            f"{call}.active_share_per_token",
        ),
        # The ReLU scene's row: the first neurons, an unpicked sample (the strongest would flatter).
        Number("pretrained.minilm.block_number", result.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number("pretrained.minilm.sample_size", len(sample), "neurons", f"len({call}.pre_activation[:10])"),
        Number("pretrained.minilm.sample_pre_activations", sample, "pre-activation", f"{call}.pre_activation[:10]"),
        Number(
            "pretrained.minilm.sample_activations",
            result.activation[: len(sample)],
            "GELU activation",
            f"{call}.activation[:10]",
        ),
        Number(
            "pretrained.minilm.sample_n_positive",
            sum(v > 0 for v in sample),
            "neurons",
            f"sum(v > 0 for v in {call}.pre_activation[:10])",
        ),
    )


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.pretrained import solve

    return (
        Dataset(
            "pretrained.minilm.ffn",
            solve(),
            "one word through MiniLM's FFN: every neuron's pre-activation and GELU activation",
            "ffn_core.pretrained.solve()",
        ),
    )
