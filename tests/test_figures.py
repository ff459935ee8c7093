"""The figure check reads bounds as bounds: "> 99,9 %" must be true of a value read."""

from scenes.kit.figures import unsourced_figures


def test_a_bound_passes_only_when_a_value_read_lies_on_its_side():
    assert unsourced_figures(["> 99,9 %", "< 0,1 %", "≤ 0,01"], {"a": 0.99954, "b": 0.0003, "c": 0.007}) == []
    assert unsourced_figures(["> 99,9 %"], {"a": 0.998}) == ["'99,9' en '> 99,9 %'"]
    assert unsourced_figures(["< 0,1 %"], {"a": 0.2}) == ["'0,1' en '< 0,1 %'"]


def test_a_plain_figure_still_needs_a_value_that_rounds_to_it():
    assert unsourced_figures(["66,8 %"], {"share": 0.6684}) == []
    assert unsourced_figures(["66,9 %"], {"share": 0.6684}) == ["'66,9' en '66,9 %'"]
