"""Numbers of the real architectures: every parameter count of ``ffn_core.params``, per
model, and the configuration each count starts from (layers, widths, heads, vocabulary), as
its authors published it, with the model's name and published size.

A published figure cites who published it (a key of ``voiceover/references.toml``, see
:func:`config_citation`); the counts themselves are computed.
"""

from __future__ import annotations

from ffn_core.registry import FRACTION, PARAMETERS, PUBLISHED, WIDTH, Number

PREFIX = "params"


_COUNT_FIELDS = (  # ParamCounts attribute -> unit
    ("total", PARAMETERS),
    ("token_embedding", PARAMETERS),
    ("position_embedding", PARAMETERS),
    ("output_head", PARAMETERS),
    ("attention_per_layer", PARAMETERS),
    ("ffn_per_layer", PARAMETERS),
    ("norms_per_layer", PARAMETERS),
    ("attention_total", PARAMETERS),
    ("ffn_total", PARAMETERS),
    ("ffn_share", FRACTION),
    ("attention_share", FRACTION),
    ("ffn_share_of_total", FRACTION),
)
_CONFIG_FIELDS = (  # ModelConfig attribute -> unit
    ("n_layers", "layers"),
    ("d_model", WIDTH),
    ("d_ff", WIDTH),
    ("n_heads", "heads"),
    ("n_kv_heads", "heads"),
    ("vocab_size", "tokens"),
)


# Who published each model's configuration: a key of voiceover/references.toml, or the work
# in words when the lecture's bibliography does not list it (its `published_source`).
_CONFIG_CITATIONS = {
    "gpt2_small": "radford2019",
    "gpt2_medium": "radford2019",
    "gpt2_large": "radford2019",
    "gpt2_xl": "radford2019",
    "gpt3_175b": "brown2020",
    "llama2_7b": "touvron2023",
    "llama2_13b": "touvron2023",
    "llama2_70b": "touvron2023",
    "minilm_l6": "wang2020",  # MiniLM's 6-layer, 384-wide architecture
}
# all-MiniLM-L6-v2 (its name and its released weights) is sentence-transformers' model.
_RELEASE_CITATIONS = {"minilm_l6": "reimers2019"}


def config_citation(name: str, source: str) -> str:
    """Who published ``name``'s configuration: its references key, else ``source`` (the work in words)."""
    return _CONFIG_CITATIONS.get(name) or source


def numbers() -> tuple[Number, ...]:
    from ffn_core.params import MODELS, param_counts

    found = []
    for name, config in MODELS.items():
        counts = param_counts(name)
        call = f"ffn_core.params.param_counts({name!r})"
        cfg = f"ffn_core.params.get_config({name!r})"
        cited = config_citation(name, config.published_source)
        released = _RELEASE_CITATIONS.get(name, cited)
        found += [
            Number(f"params.{name}.{field}", getattr(counts, field), unit, f"{call}.{field}")
            for field, unit in _COUNT_FIELDS
        ]
        found += [
            Number(f"params.{name}.{field}", getattr(config, field), unit, f"{cfg}.{field}", PUBLISHED, cited)
            for field, unit in _CONFIG_FIELDS
        ]
        found += [
            # Names carry figures too ("LLaMA-2 7B"): registered, so the screen shows them audited.
            Number(
                f"params.{name}.display_name", config.display_name, "name", f"{cfg}.display_name", PUBLISHED, released
            ),
            # The name without its size ("GPT-2" of "GPT-2 small"), for a screen that writes
            # the size in Spanish («GPT-2 pequeño»).
            Number(
                f"params.{name}.family",
                config.display_name.split(" ")[0],
                "name",
                f"{cfg}.display_name.split(' ')[0]",
                PUBLISHED,
                released,
            ),
            Number(
                f"params.{name}.published_total",
                config.published_total,
                PARAMETERS,
                f"{cfg}.published_total ({config.published_source})",
                PUBLISHED,
                released,
            ),
            Number(
                f"params.{name}.total_vs_published",
                counts.total / config.published_total - 1.0,
                "relative difference",
                f"{call}.total / {cfg}.published_total - 1",
            ),
        ]
    return tuple(found)
