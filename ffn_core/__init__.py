"""Pure numerics behind the FFN lecture: every number shown on screen is computed here.

No manim, no audio. Deterministic (seeded). See ``ffn_core.registry`` for the audited
registry of scalar numbers, and the per-topic modules for the rich results scenes draw.
"""
