"""Numbers of the stamps scene: one FFN of the fact model read as keys pressing values.

The whole reading (the prompt, every stamp's term, the words the loudest one pushes) is the
dataset ``stamps.reading``.

Neurons are numbered from 0, like the code («neurona 92» is index 92: docs/notation.md);
blocks are counted from 1 («bloque 2 de 2»).
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, WIDTH, Dataset, Number

PREFIX = "stamps"


def numbers() -> tuple[Number, ...]:
    from ffn_core.memory import FACTS
    from ffn_core.stamps import N_PRESSED, read_stamps

    r = read_stamps()
    call = "ffn_core.stamps.read_stamps()"
    pressed = r.terms[:N_PRESSED]
    marks_total = r.partial_sums[-1]
    return (
        Number("stamps.n_facts", len(FACTS), "facts", "len(ffn_core.memory.FACTS)"),
        Number("stamps.d_model", r.d_model, WIDTH, f"{call}.d_model"),
        Number("stamps.d_ff", r.d_ff, WIDTH, f"{call}.d_ff"),
        Number("stamps.n_active", r.n_active, "neurons", f"{call}.n_active"),
        Number("stamps.activations", r.coefficients, "ReLU activation per neuron", f"{call}.coefficients"),
        Number("stamps.n_blocks", len(r.answer_push_per_layer), "blocks", f"len({call}.answer_push_per_layer)"),
        Number("stamps.block_number", r.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number(
            "stamps.answer_push_per_layer",
            r.answer_push_per_layer,
            "logit (minus vocabulary mean)",
            f"{call}.answer_push_per_layer",
        ),
        Number("stamps.answer_probability", r.probability, FRACTION, f"{call}.probability"),
        Number("stamps.first_index", 0, "neuron index (0-based)", f"range({call}.d_ff)[0]: the first neuron's index"),
        Number("stamps.n_pressed", len(pressed), "neurons", "ffn_core.stamps.N_PRESSED"),
        Number("stamps.n_rest", r.n_active - len(pressed), "neurons", f"{call}.n_active - N_PRESSED"),
        Number(
            "stamps.pressed_units",
            tuple(t.unit for t in pressed),
            "neuron index (0-based)",
            f"{call}.terms[:N_PRESSED][*].unit",
        ),
        Number(
            "stamps.pressed_mark_sizes",
            tuple(t.mark_size for t in pressed),
            "Euclidean norm of coefficient x value (what the stamps are ranked by)",
            f"{call}.terms[:N_PRESSED][*].mark_size",
        ),
        Number(
            "stamps.pressed_coefficients",
            tuple(t.coefficient for t in pressed),
            "ReLU activation",
            f"{call}.terms[:N_PRESSED][*].coefficient",
        ),
        Number(
            "stamps.pressed_values",
            tuple(t.value for t in pressed),
            "vectors (d_model each)",
            f"{call}.terms[:N_PRESSED][*].value",
        ),
        *(
            Number(f"stamps.unit_{k + 1}", t.unit, "neuron index (0-based)", f"{call}.terms[{k}].unit")
            for k, t in enumerate(pressed)
        ),
        *(
            Number(
                f"stamps.mark_{k + 1}",
                t.mark_size,
                "Euclidean norm of coefficient x value",
                f"{call}.terms[{k}].mark_size",
            )
            for k, t in enumerate(pressed)
        ),
        *(
            Number(
                f"stamps.value_norm_{k + 1}",
                t.mark_size / t.coefficient,
                "Euclidean norm of the value v_i (the stamp's face)",
                f"{call}.terms[{k}].mark_size / {call}.terms[{k}].coefficient",
            )
            for k, t in enumerate(pressed)
        ),
        *(
            Number(f"stamps.coefficient_{k + 1}", t.coefficient, "ReLU activation", f"{call}.terms[{k}].coefficient")
            for k, t in enumerate(pressed)
        ),
        Number(
            "stamps.rest_values",
            tuple(t.value for t in r.terms[len(pressed) :]),
            "vectors (d_model each)",
            f"{call}.terms[N_PRESSED:][*].value",
        ),
        Number("stamps.partial_sums", r.partial_sums, "vectors (d_model each)", f"{call}.partial_sums"),
        Number("stamps.marks_total", marks_total, "vector", f"{call}.partial_sums[-1]"),
        Number("stamps.bias", r.bias, "vector", f"{call}.bias"),
        Number("stamps.output", r.output, "vector", f"{call}.output"),
        Number("stamps.module_output", r.module_output, "vector", f"{call}.module_output"),
        Number("stamps.max_abs_difference", r.max_abs_difference, "absolute difference", f"{call}.max_abs_difference"),
        Number("stamps.agreeing_decimals", r.agreeing_decimals, "decimal places", f"{call}.agreeing_decimals"),
        Number("stamps.loudest_unit", r.loudest.unit, "neuron index (0-based)", f"{call}.terms[0].unit"),
        Number("stamps.loudest_value", r.loudest.value, "vector", f"{call}.terms[0].value"),
        Number(
            "stamps.loudest_boosts", tuple(w.boost for w in r.loudest_words), "logit", f"{call}.loudest_words[*].boost"
        ),
        Number("stamps.top_boost", r.loudest_words[0].boost, "logit", f"{call}.loudest_words[0].boost"),
    )


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.stamps import read_stamps

    return (
        Dataset(
            "stamps.reading",
            read_stamps(),
            "one FFN read as stamps: the prompt, every active unit's term, the page's partial sums, pushed words",
            "ffn_core.stamps.read_stamps()",
        ),
    )
