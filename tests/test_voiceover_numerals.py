"""One number format: the screen and the subtitles write a value by the same rules, and
differ only in the no-break space (U+202F on screen, U+00A0 in subtitles, for fonts)."""

from __future__ import annotations

import pytest

from scenes.kit import typography as ty
from voiceover import numerals
from voiceover.spoken import say

NNBSP, NBSP, MINUS = "\u202f", "\u00a0", "\u2212"


@pytest.mark.parametrize(
    "value, screen",
    [
        (6_738_415_616, f"6{NNBSP}738{NNBSP}415{NNBSP}616"),
        (124_439_808, f"124{NNBSP}439{NNBSP}808"),
        (4096, f"4{NNBSP}096"),
        (384, "384"),
        (-12_288, f"{MINUS}12{NNBSP}288"),
    ],
)
def test_integers_group_thousands_with_a_narrow_no_break_space_and_a_true_minus(value, screen):
    assert ty.fmt_int(value) == screen
    assert say(value, "entero").written == screen.replace(NNBSP, NBSP)


@pytest.mark.parametrize(
    "ratio, screen",
    [
        (0.668389, f"66,8{NNBSP}%"),
        (2 / 3, f"66,7{NNBSP}%"),
        (0.05, f"5,0{NNBSP}%"),
        (1.0, f"100,0{NNBSP}%"),
    ],
)
def test_percentages_have_a_decimal_comma_and_a_space_before_the_sign(ratio, screen):
    assert ty.fmt_percent(ratio) == screen
    assert say(ratio, "porcentaje").written == screen.replace(NNBSP, NBSP)


@pytest.mark.parametrize(
    "value, screen, subtitle",
    [
        (2.29, "2,29", "2,29"),
        (-1.5, f"{MINUS}1,50", f"{MINUS}1,5"),
        (-0.001, "0,00", "0"),
        (1234.5, f"1{NNBSP}234,50", f"1{NBSP}234,5"),
        (-0.5, f"{MINUS}0,50", f"{MINUS}0,5"),
    ],
)
def test_decimals_match_between_screen_and_subtitles_but_for_spaces_and_trailing_zeros(value, screen, subtitle):
    # The spoken 'decimal' format drops trailing zeros ("dos coma cinco", written 2,5): that
    # is the one other difference, and it follows what the voice says.
    assert ty.fmt_decimal(value) == screen
    assert say(value, "decimal").written == subtitle


def test_the_only_difference_between_the_media_is_the_space():
    for value in (0, 7, 1_000, 65_536, 6_738_415_616, -4_096):
        screen, sub = numerals.integer(value), numerals.integer(value, numerals.SUBTITLES)
        assert screen.replace(NNBSP, NBSP) == sub and NNBSP not in sub
    for ratio in (0.0, 0.1234, 0.5, 0.999):
        assert numerals.percent(ratio).replace(NNBSP, NBSP) == numerals.percent(ratio, medium=numerals.SUBTITLES)


def test_millions_are_rounded_and_grouped():
    assert say(6_738_415_616, "millones").written == f"unos 6{NBSP}738 millones"
    assert say(67_000_000, "millones").written == "67 millones"


def test_an_unknown_medium_is_refused():
    with pytest.raises(ValueError, match="unknown medium"):
        numerals.integer(5, "radio")


# -- probabilities: never «cero por ciento», never a false «cien por ciento» ---------------------
@pytest.mark.parametrize(
    "p, screen",
    [
        (0.9803, f"98,0{NNBSP}%"),
        (0.016, f"1,6{NNBSP}%"),
        (0.0042, f"0,4{NNBSP}%"),
        (0.0005, f"0,1{NNBSP}%"),
        (0.00049, f"< 0,1{NNBSP}%"),
        (0.0, f"< 0,1{NNBSP}%"),
        (0.99996, f"> 99,9{NNBSP}%"),
        (1.0, f"100,0{NNBSP}%"),
    ],
)
def test_a_probability_on_screen_has_one_decimal_and_never_rounds_to_zero_or_to_a_false_certainty(p, screen):
    assert ty.fmt_probability(p) == screen
    assert numerals.probability(p, numerals.SUBTITLES) == screen.replace(NNBSP, NBSP)


@pytest.mark.parametrize(
    "p, spoken, written",
    [
        (0.9803, "noventa y ocho por ciento", f"98,0{NBSP}%"),
        (0.016, "uno coma seis por ciento", f"1,6{NBSP}%"),
        (0.01, "uno por ciento", f"1,0{NBSP}%"),
        (0.0099, "menos del uno por ciento", f"menos del 1{NBSP}%"),
        (0.0004, "menos del uno por ciento", f"menos del 1{NBSP}%"),
        (0.0, "menos del uno por ciento", f"menos del 1{NBSP}%"),
        (0.99996, "más del noventa y nueve coma nueve por ciento", f"más del 99,9{NBSP}%"),
        (1.0, "cien por ciento", f"100,0{NBSP}%"),
    ],
)
def test_the_probability_format_says_less_than_one_percent_instead_of_zero(p, spoken, written):
    said = say(p, "probabilidad")
    assert (said.spoken, said.written) == (spoken, written)
    assert "cero por ciento" not in said.spoken
    # above 1 % it is the percentage format, word for word
    if 0.01 <= p < 0.9995:
        assert said == say(p, "porcentaje")


def test_porcentaje_alone_would_say_cero_por_ciento_which_is_why_probabilidad_exists():
    assert say(0.0004, "porcentaje").spoken == "cero por ciento"


@pytest.mark.parametrize("p", [-0.01, 1.2])
def test_a_probability_outside_zero_one_is_refused(p):
    from voiceover.spoken import FieldError

    with pytest.raises(FieldError, match="not a probability"):
        say(p, "probabilidad")
    with pytest.raises(ValueError, match="not a probability"):
        numerals.probability(p)


def test_a_probability_field_in_a_script_resolves_through_the_registry_lookup():
    from voiceover.spoken import render

    spoken, written = render("La llave gana con {x.p:probabilidad}.", lambda key: 0.0003)
    assert spoken == "La llave gana con menos del uno por ciento."
    assert written == f"La llave gana con menos del 1{NBSP}%."
