"""Numbers of the compass-needle scene: a tray of real MiniLM FFN neurons reading two words.

The tray itself (every needle's neuron and its readings) is the dataset ``needles.tray``."""

from __future__ import annotations

from ffn_core.registry import WIDTH, Dataset, Number

PREFIX = "needles"


def numbers() -> tuple[Number, ...]:
    from ffn_core.needles import MAX_ANGLE_DEG, tray
    from ffn_core.registry import number

    t = tray()
    call = "ffn_core.needles.tray()"
    d_ff, d_model = _width(number("pretrained.minilm.d_ff")), _width(number("pretrained.minilm.d_model"))
    if (d_ff, d_model) != (t.d_ff, t.d_model):
        raise RuntimeError(
            f"{call} reads a layer of {t.d_model} -> {t.d_ff}, but the registry's MiniLM is "
            f"{d_model} -> {d_ff}: the two should come from the same weights"
        )
    found = [
        Number("needles.rows", t.rows, "needles", f"{call}.rows"),
        Number("needles.columns", t.columns, "needles", f"{call}.columns"),
        Number("needles.n_needles", t.n_needles, "needles (neurons)", f"{call}.rows * {call}.columns"),
        Number("needles.block_number", t.layer + 1, "block (1-based)", f"{call}.layer + 1"),
        Number("needles.neurons", t.neurons, "neuron indices (0-based)", f"{call}.neurons"),
        Number("needles.angle_scale", t.angle_scale, "pre-activation per quarter turn", f"{call}.angle_scale"),
        Number("needles.max_angle_deg", MAX_ANGLE_DEG, "degrees", "ffn_core.needles.MAX_ANGLE_DEG"),
        Number("needles.overlap", len(t.overlap), "needles", f"len({call}.overlap)"),
        Number("needles.union", len(t.union), "needles", f"len({call}.union)"),
        Number(
            "needles.only_one", len(t.union) - len(t.overlap), "needles", f"len({call}.union) - len({call}.overlap)"
        ),
        # The layer is this many times wider than the model, from the registry's own widths.
        Number(
            "needles.width_ratio",
            _exact_ratio(d_ff, d_model),
            "ratio",
            "ffn_core.registry.number('pretrained.minilm.d_ff') / "
            "ffn_core.registry.number('pretrained.minilm.d_model')",
        ),
        Number(
            "needles.layer_trays",
            _exact_ratio(d_ff, t.n_needles),
            "trays",
            f"ffn_core.registry.number('pretrained.minilm.d_ff') / {call}.n_needles",
        ),
        Number(
            "needles.model_trays",
            _exact_ratio(d_model, t.n_needles),
            "trays",
            f"ffn_core.registry.number('pretrained.minilm.d_model') / {call}.n_needles",
        ),
        Number("needles.d_model", t.d_model, WIDTH, f"{call}.d_model"),
        # What a needle laid flat really outputs: GELU of a negative number is not zero but a
        # little below it, never under this floor (MiniLM's exact, erf-based GELU).
        Number(
            "needles.gelu_floor",
            gelu_floor(),
            "activation (the minimum of GELU)",
            "ffn_core.groups.needles.gelu_floor() (min of ffn_core.shapes.gelu on a 1e-4 grid of [-3, 0])",
        ),
        Number("needles.d_ff", t.d_ff, WIDTH, f"{call}.d_ff"),
    ]
    for i, which in enumerate(("first_word", "second_word")):
        r = t.readings[i]
        at = f"{call}.readings[{i}]"
        found += [
            Number(f"needles.{which}.pre_activations", r.pre_activation, "pre-activation", f"{at}.pre_activation"),
            Number(f"needles.{which}.angles_deg", r.angles_deg, "degrees", f"{at}.angles_deg"),
            Number(f"needles.{which}.n_standing", r.n_standing, "needles", f"{at}.n_standing"),
            Number(f"needles.{which}.layer_n_standing", r.layer_n_standing, "neurons", f"{at}.layer_n_standing"),
        ]
    return tuple(found)


def datasets() -> tuple[Dataset, ...]:
    from ffn_core.needles import tray

    return (
        Dataset(
            "needles.tray",
            tray(),
            "the sampled neurons and, per word, every needle's pre-activation, angle and standing",
            "ffn_core.needles.tray()",
        ),
    )


def gelu_floor() -> float:
    """The least value MiniLM's GELU (exact, ``z * Phi(z)``) takes: about -0.17, near z = -0.75.

    Found on a fine grid of [-3, 0] (GELU is positive for z > 0 and tends to 0 as z -> -inf);
    the grid's step, 1e-4, puts it within 1e-8 of the true minimum (the curve is flat there)."""
    import numpy as np

    from ffn_core.shapes import gelu

    z = np.linspace(-3.0, 0.0, 30_001)
    return float(np.min(gelu(z)))


def _width(found: Number) -> int:
    if not isinstance(found.value, int):
        raise TypeError(f"{found.key} should be a whole number of dimensions, got {found.value!r}")
    return found.value


def _exact_ratio(a: int, b: int) -> int | float:
    """a / b as an int when b divides a (spoken and drawn as a whole number), else a float."""
    return a // b if a % b == 0 else a / b
