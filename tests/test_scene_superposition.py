"""The superposition scene: what its narration says is what the numbers show, and its drawings
put every arrow, dot and cell where the data say. Nothing renders here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ffn_core.registry import number
from voiceover.script import load_script


@pytest.fixture(autouse=True)
def _manim_media_in_tmp(tmp_path, monkeypatch):
    """Text mobjects cache glyph files under manim's media dir: keep them out of the repo."""
    from manim import config

    monkeypatch.setattr(config, "media_dir", str(tmp_path / "media"))


def _n(key: str):
    return number(key).value


def _text() -> str:
    return " ".join(" ".join(b.text for b in load_script("superposition").beats).split())


def _beat(name: str):
    return next(b for b in load_script("superposition").beats if b.name == name)


# -- the narration is true -------------------------------------------------------------------


def test_what_the_narration_says_of_the_two_sparsities_is_what_the_trained_weights_show():
    text = _text()
    n, m = _n("superposition.n_features"), _n("superposition.n_hidden")
    assert m < n
    # "el modelo se queda con los {m} rasgos más importantes, perpendiculares" (importance decays)
    assert "se queda con los {superposition.n_hidden:entero} rasgos más importantes" in text
    assert _n("superposition.dense.represented") == tuple(range(m))
    assert list(_n("superposition.importance")) == sorted(_n("superposition.importance"), reverse=True)
    assert _n("superposition.dense.min_pair_angle_whole") == 90
    # "sus direcciones miden casi cero"
    assert "miden casi cero" in text and _n("superposition.dense.dropped_max_norm") < 0.05
    # "caben los {n} en {m} dimensiones ... casi un pentágono"
    assert _n("superposition.sparse.n_represented") == n == 5
    assert abs(_n("superposition.sparse.min_gap_deg") - 72) < 6 and abs(_n("superposition.sparse.max_gap_deg") - 72) < 6
    # "en {..} de {..} entrenamientos caben los {n} ...; en el mejor, ..." (the one drawn)
    assert (
        "en {superposition.sparse.runs_with_n_features:entero} de {superposition.n_seeds:entero} entrenamientos" in text
    )
    runs = _n("superposition.sparse.runs_n_represented")
    assert sum(c == n for c in runs) == _n("superposition.sparse.runs_with_n_features") < _n("superposition.n_seeds")
    best = _n("superposition.sparse.runs_seed").index(_n("superposition.sparse.best_seed"))
    assert runs[best] == n and _n("superposition.sparse.runs_weights")[best] == _n("superposition.sparse.weights")
    # "solo el {..} trae dos o más" / "dos rasgos rara vez coinciden"
    assert _n("superposition.sparse.two_or_more_share") < 0.1
    # "el sesgo negativo y la ReLU dejan pasar solo el {..} de ese empujón"
    assert _n("superposition.sparse.leak.bias") < 0 and _n("superposition.sparse.leak.kept_share") < 0.5


def test_the_beats_that_state_literature_results_cite_them():
    for name in ("juguete", "disperso", "minilm"):
        assert "elhage2022" in _beat(name).sources
    assert set(_beat("cautela").sources) == {"elhage2022", "bricken2023"}
    # consistent with superposition, not proof of it
    assert "es compatible con la superposición; no la demuestra" in _text()


def test_the_minilm_neuron_is_closings_fruit_neuron_and_horse_outranks_every_fruit():
    from ffn_core.specialists import TOPICS

    text = _text()
    assert "{closing.fruits.neuron:entero}" in text and "horse, un animal, la enciende más que cualquier fruta" in text
    assert _n("closing.fruits.outranking") == ("horse",)
    assert "horse" in dict((k, ws) for k, _, ws in TOPICS)["animals"]
    words, acts, topics = _n("closing.words"), _n("closing.fruits.activations"), _n("closing.topic_of_word")
    assert acts[words.index("horse")] > max(a for a, t in zip(acts, topics) if t == 0)


def test_the_room_problem_uses_minilms_own_widths():
    assert _n("params.minilm_l6.vocab_size") > _n("params.minilm_l6.d_model")
    assert "{params.minilm_l6.d_model:entero}" in _text()


# -- the drawings ------------------------------------------------------------------------------


def test_feature_star_arrows_end_at_their_weights_and_dropped_features_are_dots():
    from scenes.kit.superposition import FeatureStar

    weights = ((1.0, 0.0), (0.0, -0.8), (0.01, 0.02))
    star = FeatureStar(weights, unit=2.0, threshold=0.5).shift((1.0, 0.5, 0))
    assert star.represented == (0, 1)
    assert star.arrows[2] is None and star.dots[2] is not None and star.dots[0] is None
    origin = star.origin.get_center()
    for i in (0, 1):
        assert np.allclose(star.arrows[i].get_end(), origin + 2.0 * np.array([*weights[i], 0.0]), atol=1e-6)
        assert np.allclose(star.point(i), star.arrows[i].get_end(), atol=1e-6)
    assert np.allclose(star.dots[2].get_center(), origin + 2.0 * np.array([0.01, 0.02, 0.0]))
    assert star.ring.width == pytest.approx(4.0, rel=0.02)  # norm 1
    assert star.threshold_ring.width == pytest.approx(2.0, rel=0.02)  # norm 0.5
    assert star.labels[0] is not None and star.labels[2] is None


def test_feature_star_outline_goes_round_the_tips_in_angular_order():
    from scenes.kit.superposition import FeatureStar

    weights = tuple((math.cos(a), math.sin(a)) for a in (0.0, 2.5, 1.2, 4.0, 5.2))
    star = FeatureStar(weights, unit=1.5)
    outline = star.outline()
    corners = star.drawn_arrows  # every feature is represented here
    assert len(corners) == 5
    pts = outline.get_all_points()
    for i in range(5):
        tip = star.point(i)
        assert np.min(np.linalg.norm(pts - tip, axis=1)) < 0.05


def test_feature_star_projection_lands_on_the_neighbours_line():
    from scenes.kit.superposition import FeatureStar

    star = FeatureStar(((1.0, 0.0), (math.cos(1.2), math.sin(1.2))), unit=2.0)
    drop, stretch, foot = star.projection(0, 1)
    direction = np.array([math.cos(1.2), math.sin(1.2), 0.0])
    expected = 2.0 * math.cos(1.2) * direction  # W0 . W1 / |W1| along W1's unit direction
    assert np.allclose(foot.get_center(), expected, atol=1e-6)
    assert np.allclose(stretch.get_start(), star.origin.get_center())


def test_feature_star_refuses_directions_outside_a_plane():
    from scenes.kit.superposition import FeatureStar

    with pytest.raises(ValueError, match="n x 2"):
        FeatureStar(((1.0, 0.0, 0.0),))


def test_feature_samples_light_exactly_the_present_features():
    from scenes.kit.superposition import FeatureSamples

    samples = _n("superposition.sparse.examples")
    grid = FeatureSamples(samples)
    assert grid.present == sum(v > 0 for row in samples for v in row)
    assert len(grid.cells) == len(samples) and {len(r) for r in grid.cells} == {_n("superposition.n_features")}
    with pytest.raises(ValueError, match="outside"):
        FeatureSamples(((0.5, 1.5),))


def test_toy_model_diagram_has_n_inputs_m_hidden_n_outputs_and_refuses_m_not_below_n():
    from scenes.kit.superposition import ToyModelDiagram

    diagram = ToyModelDiagram(5, 2)
    assert (len(diagram.inputs), len(diagram.hidden), len(diagram.outputs)) == (5, 2, 5)
    assert len(diagram.encode) == len(diagram.decode) == 10
    with pytest.raises(ValueError, match="fewer hidden dimensions"):
        ToyModelDiagram(3, 3)


def test_toy_model_tag_says_what_was_done():
    from scenes.kit.superposition import ToyModelTag

    tag = ToyModelTag("5", "2")
    assert tag.text.text.replace(" ", "") == "modelodejuguete,entrenadoaquí:n=5,m=2"
    assert tag.frame.width > tag.text.width


def test_neurons_to_features_draws_fewer_neurons_than_features_each_linked_to_all():
    from scenes.kit.superposition import NeuronsToFeatures

    picture = NeuronsToFeatures(3, 9)
    assert len(picture.neurons) == 3 and len(picture.features) == 9 and len(picture.links) == 27
    with pytest.raises(ValueError, match="fewer neurons than features"):
        NeuronsToFeatures(4, 4)


def test_toy_model_ghost_has_every_node_and_line_of_the_diagram_in_the_inactive_hue_and_no_text():
    from manim import MathTex, Text

    from scenes.kit import palette
    from scenes.kit.superposition import ToyModelDiagram

    diagram = ToyModelDiagram(5, 2).shift((1.0, -0.5, 0))
    ghost = diagram.ghost()
    assert (len(ghost.inputs), len(ghost.hidden), len(ghost.outputs)) == (5, 2, 5)
    assert sum(len(part) for part in ghost.lines) == len(diagram.encode) + len(diagram.decode)
    for mine, theirs in zip(ghost.inputs, diagram.inputs):
        assert np.allclose(mine.get_center(), theirs.get_center())
        assert mine.get_stroke_color() == palette.INACTIVE
    assert not any(isinstance(m, (Text, MathTex)) for m in ghost.get_family())


def test_silencing_inputs_darkens_exactly_the_absent_features():
    from scenes.kit.superposition import ToyModelDiagram

    diagram = ToyModelDiagram(5, 2)
    assert len(diagram.silence_inputs([False, False, True, False, True])) == 3


def test_the_opening_columns_draw_the_cells_and_words_they_are_given():
    from scenes.kit.superposition import VectorColumn, VocabularyColumn

    vector = VectorColumn(top=6, bottom=2)
    assert len(vector.cells) == 8 and vector.height > 3.0  # a column tall enough to carry its beat
    words = _n("closing.words")[::5]
    vocabulary = VocabularyColumn(words)
    assert [w.text for w in vocabulary.words] == list(words)
    with pytest.raises(ValueError, match="at least one word"):
        VocabularyColumn(())
