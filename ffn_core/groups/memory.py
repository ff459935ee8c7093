"""Numbers of the trained fact model (``ffn_core.memory.solve``): its size, how well it
recalls its facts, and the rank-one edit of one FFN that changes one fact and keeps the rest."""

from __future__ import annotations

from ffn_core.registry import FRACTION, PARAMETERS, WIDTH, Number

PREFIX = "memory"


def numbers() -> tuple[Number, ...]:
    from ffn_core.memory import solve

    result = solve()
    edit = result.edit
    call = "ffn_core.memory.solve()"
    return (
        Number("memory.n_facts", len(result.facts), "facts", f"len({call}.facts)"),
        Number("memory.n_parameters", result.n_parameters, PARAMETERS, f"{call}.n_parameters"),
        Number("memory.d_model", result.config.d_model, WIDTH, f"{call}.config.d_model"),
        Number("memory.d_ff", result.config.d_ff, WIDTH, f"{call}.config.d_ff"),
        Number("memory.n_layers", result.config.n_layers, "layers", f"{call}.config.n_layers"),
        Number("memory.n_heads", result.config.n_heads, "heads", f"{call}.config.n_heads"),
        Number("memory.recall_accuracy", result.recall_accuracy, FRACTION, f"{call}.recall_accuracy"),
        Number("memory.answer_neuron_share", result.answer_neuron_share, FRACTION, f"{call}.answer_neuron_share"),
        Number("memory.attention.scale", result.attention[0].scale, "1/sqrt(head_dim)", f"{call}.attention[0].scale"),
        Number("memory.edit.layer", edit.layer, "block index (0-based)", f"{call}.edit.layer"),
        Number("memory.edit.target_changed", edit.target_changed, "boolean", f"{call}.edit.target_changed"),
        Number(
            "memory.edit.old_answer_probability_before",
            edit.before.probability,
            FRACTION,
            f"{call}.edit.before.probability",
        ),
        Number(
            "memory.edit.new_answer_probability_after",
            edit.after.probability,
            FRACTION,
            f"{call}.edit.after.probability",
        ),
        Number("memory.edit.others_count", len(edit.others_after), "facts", f"len({call}.edit.others_after)"),
        Number(
            "memory.edit.others_unchanged_share",
            edit.others_unchanged_share,
            FRACTION,
            f"{call}.edit.others_unchanged_share",
        ),
        Number("memory.edit.update_rank", edit.update_rank, "rank", f"{call}.edit.update_rank"),
        Number(
            "memory.edit.relative_update_norm",
            edit.update_norm / edit.weight_norm,
            "ratio of Frobenius norms",
            f"{call}.edit.update_norm / {call}.edit.weight_norm",
        ),
    )
