"""One palette with meanings: a colour means the same thing in every scene."""

from __future__ import annotations

from manim import ManimColor

BACKGROUND = ManimColor("#0F1420")
INK = ManimColor("#ECEFF4")  # body text
MUTED = ManimColor("#8A93A6")  # secondary text, axes, inactive things
ATTENTION = ManimColor("#F2C14E")  # attention: warm gold, "the bright tip"
FFN = ManimColor("#3FA7D6")  # the feed-forward layer: deep blue, "the mass below"
WATER = ManimColor("#1B3A5C")
ACTIVE = ManimColor("#7CF29C")  # a neuron that fires
INACTIVE = ManimColor("#3A4150")  # a neuron silenced by the activation
POSITIVE = ManimColor("#E8735A")  # positive values (matrix entries, activations)
NEGATIVE = ManimColor("#5A8DE8")  # negative values
HIGHLIGHT = ManimColor("#FF5DA2")  # the one thing to look at now (an edited fact, a bookmark)
