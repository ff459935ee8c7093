"""One sample of every kit drawing, for `ffn-video gallery`.

Each function below builds one kit mobject class with example arguments, so the gallery
can show it. Data come from `ffn_core`'s audited registry (`number(...)` for figures,
`dataset(...)` for a solver's whole result, as the scenes read them); everything else is
illustrative and carries no digits (a count of slots, a word, a colour).

A drawing that only makes sense on something else (points on their plane, a hole in its
paper) returns a group holding both: the gallery looks for an instance of the class
itself inside what the sample returns.

Adding a kit drawing? Add its sample here with `@sample_of(NewClass)`; the gallery's
test fails, naming the class, until it has one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from manim import DOWN, LEFT, RIGHT, Mobject, Rectangle, VGroup

from scenes.kit import (
    activation_graph,
    attention_map,
    badges,
    block_diagram,
    blocks,
    cards,
    citation,
    curves,
    directions,
    iceberg,
    icons,
    layer_stack,
    matrix,
    needles,
    neurons,
    palette,
    piano_roll,
    plane,
    relay,
    specialists,
    stamps,
    stencil,
    superposition,
    tokens,
    widths,
)
from scenes.kit import typography as ty

SampleFn = Callable[[], Mobject]
SAMPLES: dict[type, SampleFn] = {}


def sample_of(cls: type) -> Callable[[SampleFn], SampleFn]:
    """Register the decorated function as `cls`'s sample."""

    def register(fn: SampleFn) -> SampleFn:
        if cls in SAMPLES:
            raise ValueError(f"{cls.__name__} already has a sample ({SAMPLES[cls].__name__})")
        SAMPLES[cls] = fn
        return fn

    return register


def _n(key: str):
    """A value from the audited registry."""
    from ffn_core.numbers import number

    return number(key).value


def _data(key: str):
    """A rich result (a solver's whole output) from the audited registry's datasets."""
    from ffn_core.numbers import dataset

    return dataset(key).value


# -- activation_graph ----------------------------------------------------------------------


@sample_of(activation_graph.ActivationGraph)
def _activation_graph():
    from ffn_core.shapes import relu

    graph = activation_graph.ActivationGraph()
    pre, post = _n("pretrained.minilm.sample_pre_activations"), _n("pretrained.minilm.sample_activations")
    dots = VGroup(*(graph.point(x, y, color=palette.ACTIVE if y > 0 else palette.NEGATIVE) for x, y in zip(pre, post)))
    return VGroup(graph, graph.curve(relu, palette.FFN), dots)


# -- attention_map -------------------------------------------------------------------------


@sample_of(attention_map.Heatmap)
def _heatmap():
    tokens = _data("attention.walk").tokens
    return attention_map.Heatmap(
        _n("attention.head1.weights"),
        kind="weight",
        places=2,
        cell_width=1.0,
        cell_height=0.55,
        visible=_n("attention.head1.visible"),
        row_labels=tokens,
        col_labels=tokens,
    )


# -- block_diagram -------------------------------------------------------------------------


@sample_of(block_diagram.ShapeTag)
def _shape_tag():
    return block_diagram.ShapeTag(_n("block.llama2_7b.shape.ffn_hidden"))


@sample_of(block_diagram.AddNode)
def _add_node():
    return block_diagram.AddNode()


@sample_of(block_diagram.SublayerBox)
def _sublayer_box():
    return block_diagram.SublayerBox("FFN", palette.FFN, width=3.2)


@sample_of(block_diagram.Slab)
def _slab():
    slab = block_diagram.Slab(size=1.2)
    return VGroup(slab, slab.notes(palette.FFN, seed=1))


@sample_of(block_diagram.Station)
def _station():
    return block_diagram.Station("FFN", palette.FFN, stream_x=-4.2, read_y=-0.6, write_y=0.9)


@sample_of(block_diagram.ResidualStream)
def _residual_stream():
    return block_diagram.ResidualStream(0.0, -1.5, 1.5)


@sample_of(block_diagram.BlockDiagram)
def _block_diagram():
    return block_diagram.BlockDiagram("Atención", "FFN")


@sample_of(block_diagram.PositionRows)
def _position_rows():
    rows = block_diagram.PositionRows(4)
    return VGroup(rows, rows.causal_arcs())


@sample_of(block_diagram.BlockStack)
def _block_stack():
    return block_diagram.BlockStack(_n("relay.n_layers") * 2)


# -- blocks --------------------------------------------------------------------------------


@sample_of(blocks.StageBox)
def _stage_box():
    return blocks.StageBox("Atención", palette.ATTENTION)


@sample_of(blocks.FlowArrow)
def _flow_arrow():
    return blocks.FlowArrow(LEFT * 1.5, RIGHT * 1.5)


# -- cards ---------------------------------------------------------------------------------


@sample_of(cards.ShareBar)
def _share_bar():
    share = _n("params.llama2_7b.ffn_share_of_total")
    bar = cards.ShareBar(share, width=8.0)
    caption = ty.label(f"FFN: {ty.fmt_percent(share)} de {_n('params.llama2_7b.display_name')}", color=palette.FFN)
    return VGroup(bar, caption.next_to(bar, DOWN, buff=0.3))


@sample_of(cards.ChapterTile)
def _chapter_tile():
    return cards.ChapterTile("iceberg", "El iceberg")


@sample_of(cards.TerminalBox)
def _terminal_box():
    return cards.TerminalBox(["$ ffn-video gallery", "renders/preview/gallery/index.html"], width=7.0)


@sample_of(cards.CreditLine)
def _credit_line():
    return cards.CreditLine("Voz:", "Kokoro")


@sample_of(cards.FactStrip)
def _fact_strip():
    return cards.FactStrip(_n("piano_roll.n_facts"), width=8.0)


@sample_of(cards.KeyValueShelf)
def _key_value_shelf():
    return cards.KeyValueShelf()


# -- curves --------------------------------------------------------------------------------


@sample_of(curves.CurveAxes)
def _curve_axes():
    errors = _n("approx.rms_error")
    axes = curves.CurveAxes((0, len(errors) - 1, 1), (0, max(errors), 0.1), width=5.0, height=3.0)
    xs = np.arange(len(errors))
    return VGroup(axes, axes.polyline(xs, errors, palette.FFN), axes.fold_dots(xs, errors, max_radius=0.08))


@sample_of(curves.ErrorChart)
def _error_chart():
    return curves.ErrorChart(_n("approx.neuron_counts"), _n("approx.rms_error"))


# -- iceberg -------------------------------------------------------------------------------


@sample_of(iceberg.Iceberg)
def _iceberg():
    return iceberg.Iceberg(above=_n("params.llama2_7b.attention_per_layer"), below=_n("params.llama2_7b.ffn_per_layer"))


@sample_of(iceberg.Ledger)
def _ledger():
    model = "params.llama2_7b"
    return iceberg.Ledger(
        [("Parte", palette.MUTED), ("Parámetros", palette.MUTED)],
        [
            [("Atención", palette.ATTENTION), (ty.fmt_int(_n(f"{model}.attention_per_layer")), palette.ATTENTION)],
            [("FFN", palette.FFN), (ty.fmt_int(_n(f"{model}.ffn_per_layer")), palette.FFN)],
        ],
    )


@sample_of(iceberg.PartsCard)
def _parts_card():
    model = "params.llama2_7b"
    terms = [
        iceberg.CardLine("Embeddings", _n(f"{model}.token_embedding")),
        iceberg.CardLine("Posiciones", _n(f"{model}.position_embedding"), absent_note="RoPE, sin pesos"),
        iceberg.CardLine("Atención", _n(f"{model}.attention_total"), palette.ATTENTION),
        iceberg.CardLine("FFN", _n(f"{model}.ffn_total"), palette.FFN),
        iceberg.CardLine("Normas", _n("iceberg.llama2_7b.norms_total")),
        iceberg.CardLine("Salida", _n(f"{model}.output_head")),
    ]
    return iceberg.PartsCard(_n(f"{model}.display_name"), terms, _n(f"{model}.total"))


# -- icons ---------------------------------------------------------------------------------


@sample_of(icons.ItemCard)
def _item_card():
    return icons.ItemCard(_n("perro.expanded")[1])


@sample_of(icons.Drawer)
def _drawer():
    return icons.Drawer(3)


@sample_of(icons.Bed)
def _bed():
    return icons.Bed(2, 3)


@sample_of(icons.Backpack)
def _backpack():
    return icons.Backpack(3)


@sample_of(icons.Juror)
def _juror():
    return icons.Juror()


@sample_of(icons.Jury)
def _jury():
    jury = icons.Jury(5)
    jury.jurors[1].set_fill(palette.ACTIVE, opacity=1)
    return jury


# -- layer_stack ---------------------------------------------------------------------------


@sample_of(layer_stack.LayerStack)
def _layer_stack():
    return layer_stack.LayerStack(_n("params.gpt2_small.n_layers"))


# -- matrix --------------------------------------------------------------------------------


@sample_of(matrix.MatrixMob)
def _matrix_mob():
    return matrix.MatrixMob(_n("expand_contract.expand_matrix"))


@sample_of(matrix.VectorColumn)
def _vector_column():
    return matrix.VectorColumn(_n("expand_contract.expanded"))


@sample_of(matrix.VectorRow)
def _vector_row():
    return matrix.VectorRow(_n("perro.input"))


# -- needles -------------------------------------------------------------------------------


@sample_of(needles.Needle)
def _needle():
    return needles.Needle(length=1.6, value=_n("needles.first_word.pre_activations")[3], stage=needles.READING)


@sample_of(needles.NeedleTray)
def _needle_tray():
    tray = needles.NeedleTray(_n("needles.rows"), _n("needles.columns"))
    return tray.show(_n("needles.first_word.pre_activations"), needles.READING)


@sample_of(needles.BarMagnet)
def _bar_magnet():
    return needles.BarMagnet("perro")


@sample_of(needles.MiniTray)
def _mini_tray():
    return needles.MiniTray(_n("needles.rows"), _n("needles.columns"), width=3.2, height=2.4)


# -- neurons -------------------------------------------------------------------------------


@sample_of(neurons.OnIcon)
def _on_icon():
    return neurons.OnIcon()


@sample_of(neurons.OffIcon)
def _off_icon():
    return neurons.OffIcon()


@sample_of(neurons.NeuronBar)
def _neuron_bar():
    return neurons.NeuronBar(_n("perro.expanded")[1])


@sample_of(neurons.NeuronRow)
def _neuron_row():
    return neurons.NeuronRow(_n("perro.expanded"))


@sample_of(neurons.NeuronGrid)
def _neuron_grid():
    grid = neurons.NeuronGrid(_n("stamps.activations"), columns=16)
    grid.firing.set_fill(palette.ACTIVE, opacity=1)  # as after `light_up()`
    return grid


# -- piano_roll ----------------------------------------------------------------------------


def _on_paper(*marks) -> VGroup:
    """Marks on a strip of roll paper: a hole is the background showing through it."""
    paper = Rectangle(width=2.4, height=1.2, stroke_width=0, fill_color=piano_roll.PAPER, fill_opacity=1)
    return VGroup(paper, *marks)


@sample_of(piano_roll.Spool)
def _spool():
    return piano_roll.Spool(height=2.0)


@sample_of(piano_roll.ReadingBar)
def _reading_bar():
    return piano_roll.ReadingBar(5, lane_height=0.3)


@sample_of(piano_roll.Hole)
def _hole():
    return _on_paper(piano_roll.Hole(0, 0, 0.8, 0.3))


@sample_of(piano_roll.Patch)
def _patch():
    return _on_paper(piano_roll.Patch(0, 0, 0.8, 0.3))


@sample_of(piano_roll.Roll)
def _roll():
    lanes = _n("piano_roll.lanes")
    subjects, answers = _n("piano_roll.subjects"), _n("piano_roll.answers_before")
    return piano_roll.Roll(lanes, list(zip(subjects, answers))[:5], window_width=8.0, bar_from_left=1.6)


@sample_of(piano_roll.ProbabilityBar)
def _roll_probability_bar():
    return piano_roll.ProbabilityBar(
        _n("piano_roll.answers_edit")[1], _n("piano_roll.new_probability_after"), palette.FFN, track_width=3.0
    )


@sample_of(piano_roll.OuterProduct)
def _outer_product():
    return piano_roll.OuterProduct(_n("piano_roll.update_column"), _n("piano_roll.update_row"), width=6.0, height=3.0)


@sample_of(piano_roll.StreamToken)
def _stream_token():
    return piano_roll.StreamToken(ty.math(r"x\,W_1"), palette.FFN)


@sample_of(piano_roll.Checklist)
def _checklist():
    subjects, before, after = (_n(f"piano_roll.{k}") for k in ("subjects", "answers_before", "answers_after"))
    entries = [(s, a, a == b) for s, b, a in zip(subjects, before, after)][:6]
    return piano_roll.Checklist(entries, columns=2, cell_width=3.6)


# -- plane ----------------------------------------------------------------------------------


def _plane_and_points():

    xor = _data("xor.solution")
    square = plane.PlaneSquare(_n("xor.view"), side=3.0)
    return xor, square, plane.ClassPoints(square, xor.points, xor.labels)


@sample_of(plane.PlaneSquare)
def _plane_square():

    return plane.PlaneSquare(_n("xor.view"), side=3.0)


@sample_of(plane.CircleMark)
def _circle_mark():
    return plane.CircleMark()


@sample_of(plane.CrossMark)
def _cross_mark():
    return plane.CrossMark()


@sample_of(plane.ClassPoints)
def _class_points():
    _, square, points = _plane_and_points()
    return VGroup(square, points)


@sample_of(plane.MissRings)
def _miss_rings():
    xor, square, points = _plane_and_points()
    return VGroup(square, points, plane.MissRings(points).show(xor.linear.best_line.correct))


@sample_of(plane.HalfPlaneShade)
def _half_plane_shade():
    xor, square, points = _plane_and_points()
    best = xor.linear.best_line
    return VGroup(square, plane.HalfPlaneShade(square, best.angle_rad, best.offset), points)


@sample_of(plane.AccuracyCounter)
def _accuracy_counter():
    return plane.AccuracyCounter("Aciertos", _n("xor.n_points")).show(_n("xor.linear_best_correct_points"))


@sample_of(plane.SweepingLine)
def _sweeping_line():
    from ffn_core.shapes import clip_line

    xor, square, points = _plane_and_points()
    counts = _n("xor.sweep_correct_points")
    counter = plane.AccuracyCounter("Aciertos", len(xor.points))
    sweep = plane.SweepingLine(square, points, xor.sweep, counts, counter, clip=clip_line)
    counter.next_to(square, DOWN, buff=0.3)
    return VGroup(square, sweep, points)


@sample_of(plane.DecisionRegions)
def _decision_regions():
    xor, square, points = _plane_and_points()
    regions = plane.DecisionRegions(square, xor.mlp.grid_x, xor.mlp.grid_y, xor.mlp.region)
    return VGroup(regions, square, points)


# -- relay ---------------------------------------------------------------------------------


@sample_of(relay.Runner)
def _runner():
    runner = relay.Runner(palette.ATTENTION).place(0.0, 0.2)
    return runner.carry(relay.Baton())


@sample_of(relay.Baton)
def _baton():
    return relay.Baton(size=3.0)


@sample_of(relay.Track)
def _track():
    track = relay.Track(-3.0, 3.0, 0.0, stations=[-1.0, 1.0])
    track.stripe(palette.ATTENTION, -3.0)
    track.stripe(palette.FFN, -1.0)
    track.reach(3.0)
    return track


@sample_of(relay.ProbabilityBar)
def _relay_probability_bar():
    p = _n("relay.p_attention1")
    return relay.ProbabilityBar(p, ty.fmt_percent(p), _n("relay.answer"), palette.FFN)


@sample_of(relay.HeadRow)
def _head_row():
    block, head = 0, 1
    weights = _n("relay.attention")[block][head]
    xs = [(i - (len(weights) - 1) / 2) * 1.6 for i in range(len(weights))]
    name = f"cabeza {_n('relay.head_numbers')[head]}"
    return relay.HeadRow(weights, [ty.fmt_decimal(w) for w in weights], xs, 0.0, name)


@sample_of(relay.RelayStack)
def _relay_stack():
    return relay.RelayStack(_n("relay.large.n_blocks"))


# -- specialists ---------------------------------------------------------------------------


@sample_of(specialists.WordColumns)
def _word_columns():
    return specialists.WordColumns(_n("closing.topic_names"), _n("closing.words"), _n("closing.topic_of_word"))


@sample_of(specialists.TopicBars)
def _topic_bars():
    return specialists.TopicBars(
        _n("closing.fruits.activations"),
        _n("closing.words"),
        _n("closing.topic_of_word"),
        _n("closing.topic_names"),
        focus=0,
    )


@sample_of(specialists.NeuronBadge)
def _neuron_badge():
    names = _n("closing.topic_names")
    return specialists.NeuronBadge(
        f"Neurona {_n('closing.fruits.neuron')}",
        [f"especialista en {names[0].lower()}", f"bloque {_n('closing.block_number')}"],
        specialists.topic_color(0),
        width=4.3,
    )


# -- stamps --------------------------------------------------------------------------------


def _ink_scale() -> float:
    return float(np.max(np.abs(_n("stamps.marks_total"))))


@sample_of(stamps.InkGrid)
def _ink_grid():
    return stamps.InkGrid(_n("stamps.marks_total"), _ink_scale())


@sample_of(stamps.Page)
def _page():
    return stamps.Page(_n("stamps.d_model"), _ink_scale()).printed(_n("stamps.partial_sums")[1])


@sample_of(stamps.Stamp)
def _stamp():
    return stamps.Stamp(_n("stamps.loudest_value"))


# -- stencil -------------------------------------------------------------------------------


def _stencil_card() -> stencil.StencilCard:
    gates = _n("stencil.gate")
    return stencil.StencilCard(gates, stencil.columns(len(gates), 1.3), width=8.4)


@sample_of(stencil.StencilCard)
def _stencil():
    return _stencil_card()


@sample_of(stencil.SprayNozzle)
def _spray_nozzles():
    nozzles = [stencil.SprayNozzle(p) for p in _n("stencil.paint")]
    return VGroup(*nozzles).arrange(RIGHT, buff=0.4)


@sample_of(stencil.PaperSheet)
def _paper_sheet():
    card = _stencil_card()
    return stencil.PaperSheet(_n("stencil.product"), card.xs, card.hole_widths, width=8.4)


# -- tokens --------------------------------------------------------------------------------


@sample_of(tokens.TokenChip)
def _token_chip():
    return tokens.TokenChip("perro")


@sample_of(tokens.TokenRow)
def _token_row():
    row = tokens.TokenRow(_n("relay.prompt_words"))
    arcs = tokens.attention_arcs(row, focus=_n("relay.prompt_words")[-1])
    return VGroup(row, arcs)


# -- widths --------------------------------------------------------------------------------


@sample_of(widths.WidthBars)
def _width_bars():
    d_model, d_ff = _n("params.gpt2_small.d_model"), _n("params.gpt2_small.d_ff")
    captions = [ty.fmt_int(d) for d in (d_model, d_ff, d_model)]
    return widths.WidthBars((d_model, d_ff, d_model), unit_height=3.0 / d_ff, captions=captions)


# -- badges --------------------------------------------------------------------------------


class _Registry:
    """What a badge reads of its scene (`number`), from the audited registry."""

    def number(self, key: str):
        return _n(key)


@sample_of(badges.ModelBadge)
def _model_badges():
    return VGroup(*(badges.model_badge(_Registry(), m) for m in badges.MODELS)).arrange_in_grid(2, 2, buff=0.3)


# -- citation ------------------------------------------------------------------------------


@sample_of(citation.Citation)
def _citation():
    return citation.Citation.of(("geva2021", "dai2022"))


# -- directions (added with the features scene) -----------------------------------------------


def _key_plane() -> directions.DirectionPlane:
    return directions.DirectionPlane(u_range=(-3.1, 2.6), scale=0.8)


@sample_of(directions.VectorStrip)
def _vector_strip():
    return directions.VectorStrip(_n("features.x"), rows=2, cell=0.3)


@sample_of(directions.DirectionPlane)
def _direction_plane():
    plane = _key_plane()
    u, w = _n("features.pusher.plane_x")
    key = plane.arrow(_n("features.pusher.key_norm"), 0, color=palette.HIGHLIGHT)
    return VGroup(plane, plane.arrow(u, w, color=palette.FFN), key)


@sample_of(directions.Shadow)
def _shadow():
    plane = _key_plane()
    u, w = _n("features.pusher.plane_x")
    return VGroup(plane, plane.arrow(u, w, color=palette.FFN), directions.Shadow(plane, u, w, offset=-0.6))


@sample_of(directions.ThresholdLine)
def _threshold_line():
    plane = _key_plane()
    line = directions.ThresholdLine(plane, _n("features.pusher.threshold"), w_range=(-0.8, 3.0))
    return VGroup(plane, line, line.passing(_n("features.pusher.shadow")))


@sample_of(directions.ShadowRows)
def _shadow_rows():
    return directions.ShadowRows(
        _n("features.subjects"),
        _n("features.pusher.fact_shadows"),
        _n("features.pusher.threshold"),
        u_range=(-3.0, 2.2),
        highlight=_n("features.fact_index"),
    )


@sample_of(directions.WordBars)
def _word_bars():
    return directions.WordBars(
        _n("features.pusher.lens_words"), _n("features.pusher.lens_logits"), highlight=(_n("features.answer"),)
    )


# -- superposition (added by N2) -----------------------------------------------------------


@sample_of(superposition.FeatureStar)
def _feature_star():
    threshold = _n("superposition.threshold")
    dense = superposition.FeatureStar(_n("superposition.dense.weights"), unit=1.3, threshold=threshold)
    sparse = superposition.FeatureStar(_n("superposition.sparse.weights"), unit=1.3, threshold=threshold)
    stars = VGroup(dense, sparse).arrange(RIGHT, buff=1.2)
    sparse_label = f"dispersión {ty.fmt_decimal(_n('superposition.sparse.sparsity'), 1)}"
    captions = VGroup(
        ty.label(f"dispersión {ty.fmt_decimal(_n('superposition.dense.sparsity'), 0)}").next_to(dense, DOWN, buff=0.2),
        ty.label(sparse_label).next_to(sparse, DOWN, buff=0.2),
    )
    return VGroup(stars, captions, sparse.outline())


@sample_of(superposition.ToyModelDiagram)
def _toy_model_diagram():
    return superposition.ToyModelDiagram(_n("superposition.n_features"), _n("superposition.n_hidden"))


@sample_of(superposition.FeatureSamples)
def _feature_samples():
    dense = superposition.FeatureSamples(_n("superposition.dense.examples"))
    sparse = superposition.FeatureSamples(_n("superposition.sparse.examples"))
    return VGroup(dense, sparse).arrange(RIGHT, buff=1.0)


@sample_of(superposition.ToyModelTag)
def _toy_model_tag():
    return superposition.ToyModelTag(
        ty.fmt_int(_n("superposition.n_features")), ty.fmt_int(_n("superposition.n_hidden"))
    )


@sample_of(superposition.NeuronsToFeatures)
def _neurons_to_features():
    return superposition.NeuronsToFeatures()
