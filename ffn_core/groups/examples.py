"""Numbers of the worked examples: the expand/contract toy (``expand_contract.*``, entry by
entry, as the scene draws and says them) and the word «perro» through a small FFN
(``perro.*``), with its key-value reading term by term. Both come from ``ffn_core.examples``."""

from __future__ import annotations

from ffn_core.registry import WIDTH, Number

PREFIX = ("expand_contract", "perro")


def numbers() -> tuple[Number, ...]:
    from ffn_core.examples import expand_contract, word_walkthrough
    from ffn_core.ffn import key_value_reading

    example = expand_contract()
    walk = word_walkthrough()
    reading = key_value_reading(walk.trace.x, walk.w_in, walk.w_out)
    ec, wk = "ffn_core.examples.expand_contract()", "ffn_core.examples.word_walkthrough()"
    return (
        Number("expand_contract.input", example.expand.input, "vector", f"{ec}.expand.input"),
        Number("expand_contract.expanded", example.expanded, "vector", f"{ec}.expanded"),
        Number("expand_contract.contracted", example.contracted, "vector", f"{ec}.contracted"),
        Number("perro.input", walk.trace.x, "vector", f"{wk}.trace.x"),
        Number("perro.expanded", walk.expanded, "vector", f"{wk}.expanded"),
        Number("perro.activated", walk.activated, "vector", f"{wk}.activated"),
        Number("perro.contracted", walk.contracted, "vector", f"{wk}.contracted"),
        Number("perro.n_active", walk.n_active, "neurons", f"{wk}.n_active"),
        Number("perro.d_ff", len(walk.expanded), WIDTH, f"len({wk}.expanded)"),
        Number(
            "perro.key_value_max_difference",
            reading.max_abs_difference,
            "absolute difference",
            "ffn_core.ffn.key_value_reading(perro).max_abs_difference",
        ),
        # What the expand/contract scene draws and says, entry by entry (narration speaks scalars).
        Number("expand_contract.input_width", len(example.expand.input), WIDTH, f"len({ec}.expand.input)"),
        Number("expand_contract.expanded_width", len(example.expanded), WIDTH, f"len({ec}.expanded)"),
        Number("expand_contract.expand_matrix", example.expand.matrix, "matrix", f"{ec}.expand.matrix"),
        Number("expand_contract.contract_matrix", example.contract.matrix, "matrix", f"{ec}.contract.matrix"),
        Number(
            "expand_contract.expand_products", example.expand.products, "products per output", f"{ec}.expand.products"
        ),
        Number(
            "expand_contract.contract_products",
            example.contract.products,
            "products per output",
            f"{ec}.contract.products",
        ),
        *(
            Number(f"expand_contract.input_{i}", v, "value", f"{ec}.expand.input[{i}]")
            for i, v in enumerate(example.expand.input)
        ),
        *(
            Number(f"expand_contract.expand_{i}_{j}", v, "value", f"{ec}.expand.matrix[{i}][{j}]")
            for i, row in enumerate(example.expand.matrix)
            for j, v in enumerate(row)
        ),
        *(
            Number(f"expand_contract.expanded_{j}", v, "value", f"{ec}.expanded[{j}]")
            for j, v in enumerate(example.expanded)
        ),
        *(
            Number(f"expand_contract.contracted_{j}", v, "value", f"{ec}.contracted[{j}]")
            for j, v in enumerate(example.contracted)
        ),
        Number("perro.d_model", len(walk.trace.x), WIDTH, f"len({wk}.trace.x)"),
        # The key-value reading term by term: neuron i adds activation_i * value_i to the output.
        *(
            Number(f"perro.contribution.n{i + 1}", term, "vector", f"ffn_core.ffn.key_value_reading(perro).terms[{i}]")
            for i, term in enumerate(reading.terms)
        ),
        Number(
            "perro.loudest_neuron",
            1 + max(range(len(reading.terms)), key=lambda i: sum(v * v for v in reading.terms[i])),
            "neuron (1-based)",
            "1 + argmax_i |ffn_core.ffn.key_value_reading(perro).terms[i]|",
        ),
    )
