"""Numbers of the features scene: one neuron of the fact model as a question (its key) and
an answer (its value), read in the geometry of the residual stream.

Neuron indices are 0-based, as in the code («neurona 92» is index 92). The whole reading is
the dataset ``features.reading``.
"""

from __future__ import annotations

from ffn_core.registry import WIDTH, Dataset, Number

PREFIX = "features"


def numbers() -> tuple[Number, ...]:
    from ffn_core.features import read_features

    r = read_features()
    call = "ffn_core.features.read_features()"
    numbers = [
        Number("features.prompt", r.prompt, "words", f"{call}.prompt"),
        Number("features.answer", r.answer, "word", f"{call}.answer"),
        Number("features.predicted", r.predicted, "word", f"{call}.predicted"),
        Number("features.word", r.word, "word", f"{call}.word"),
        Number("features.layer", r.layer, "block index (0-based)", f"{call}.layer"),
        Number("features.n_layers", r.n_layers, "blocks", f"{call}.n_layers"),
        Number("features.d_model", r.d_model, WIDTH, f"{call}.d_model"),
        Number("features.d_ff", r.d_ff, WIDTH, f"{call}.d_ff"),
        Number("features.vocab_size", r.vocab_size, "words", f"{call}.vocab_size"),
        Number("features.n_facts", len(r.subjects), "facts", f"len({call}.subjects)"),
        Number("features.subjects", r.subjects, "words", f"{call}.subjects"),
        Number("features.fact_index", r.fact_index, "fact index (0-based)", f"{call}.fact_index"),
        Number("features.x", r.x, "vector (d_model): Norm(x), the FFN's input", f"{call}.x"),
        Number("features.x_norm", r.x_norm, "Euclidean norm", f"{call}.x_norm"),
        Number("features.stream_norm", r.stream_norm, "Euclidean norm", f"{call}.stream_norm"),
        Number("features.final_sigma", r.final_sigma, "final LayerNorm divisor", f"{call}.final_sigma"),
        Number("features.answer_logit", r.answer_logit, "logit", f"{call}.answer_logit"),
        Number("features.runner_up_logit", r.runner_up_logit, "logit", f"{call}.runner_up_logit"),
    ]
    for name, n in (("pusher", r.pusher), ("hardest", r.hardest)):
        where = f"{call}.{name}"
        fired = n.fired_facts
        numbers += [
            Number(f"features.{name}.neuron", n.neuron, "neuron index (0-based)", f"{where}.neuron"),
            Number(f"features.{name}.key", n.key, "vector (d_model): column of W₁", f"{where}.key"),
            Number(f"features.{name}.bias", n.bias, "bias (b₁ entry)", f"{where}.bias"),
            Number(f"features.{name}.dot", n.dot, "dot product", f"{where}.dot"),
            Number(f"features.{name}.key_norm", n.key_norm, "Euclidean norm", f"{where}.key_norm"),
            Number(f"features.{name}.shadow", n.shadow, "projection length", f"{where}.shadow"),
            Number(f"features.{name}.threshold", n.threshold, "projection length", f"{where}.threshold"),
            Number(f"features.{name}.angle_deg", n.angle_deg, "degrees", f"{where}.angle_deg"),
            Number(f"features.{name}.plane_x", n.plane_x, "plane coordinates", f"{where}.plane_x"),
            Number(f"features.{name}.pre_activation", n.pre_activation, "pre-activation", f"{where}.pre_activation"),
            Number(f"features.{name}.activation", n.activation, "ReLU activation", f"{where}.activation"),
            Number(f"features.{name}.value", n.value, "vector (d_model): row of W₂", f"{where}.value"),
            Number(f"features.{name}.value_norm", n.value_norm, "Euclidean norm", f"{where}.value_norm"),
            Number(f"features.{name}.write_norm", n.write_norm, "Euclidean norm", f"{where}.write_norm"),
            Number(
                f"features.{name}.fact_pre_activations",
                n.fact_pre_activations,
                "pre-activation per fact",
                f"{where}.fact_pre_activations",
            ),
            Number(
                f"features.{name}.fact_shadows", n.fact_shadows, "projection length per fact", f"{where}.fact_shadows"
            ),
            Number(f"features.{name}.n_fired", len(fired), "facts", f"len({where}.fired_facts)"),
            Number(
                f"features.{name}.fired_subjects",
                tuple(r.subjects[j] for j in fired),
                "words",
                f"{call}.subjects[{where}.fired_facts]",
            ),
            Number(
                f"features.{name}.top_subject", r.subjects[n.top_fact], "word", f"{call}.subjects[{where}.top_fact]"
            ),
            Number(
                f"features.{name}.top_fact_activation",
                n.fact_pre_activations[n.top_fact],
                "ReLU activation",
                f"{where}.fact_pre_activations[{where}.top_fact]",
            ),
            Number(
                f"features.{name}.lens_words", tuple(w.word for w in n.lens_top), "words", f"{where}.lens_top[*].word"
            ),
            Number(
                f"features.{name}.lens_logits",
                tuple(w.logit for w in n.lens_top),
                "logit",
                f"{where}.lens_top[*].logit",
            ),
            Number(f"features.{name}.first_word", n.lens_top[0].word, "word", f"{where}.lens_top[0].word"),
            Number(f"features.{name}.first_logit", n.lens_top[0].logit, "logit", f"{where}.lens_top[0].logit"),
            Number(f"features.{name}.second_word", n.lens_top[1].word, "word", f"{where}.lens_top[1].word"),
            Number(f"features.{name}.second_logit", n.lens_top[1].logit, "logit", f"{where}.lens_top[1].logit"),
            Number(f"features.{name}.answer_rank", n.answer_rank, "rank (0 = top)", f"{where}.answer_rank"),
            Number(f"features.{name}.answer_place", n.answer_rank + 1, "place (1 = top)", f"{where}.answer_rank + 1"),
            Number(f"features.{name}.answer_logit", n.answer_logit, "logit", f"{where}.answer_logit"),
            Number(f"features.{name}.write_plane", n.write_plane, "plane coordinates", f"{where}.write_plane"),
            Number(
                f"features.{name}.stream_value_angle_deg",
                n.stream_value_angle_deg,
                "degrees",
                f"{where}.stream_value_angle_deg",
            ),
        ]
    return tuple(numbers)


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.features import read_features

    return (
        Dataset(
            "features.reading",
            read_features(),
            "one neuron of the fact model as directions: its key's dot product with the FFN's input, "
            "the threshold, every fact's shadow on the key, its value and the logit lens reading it",
            "ffn_core.features.read_features()",
        ),
    )
