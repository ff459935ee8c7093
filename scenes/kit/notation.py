"""The lecture's one notation (docs/notation.md) as helpers: scenes call these, they never type
the strings.

Three kinds of helper:
- words and labels for `ty.label` / `ty.small` (plain text, Unicode subscripts): `KEY`,
  `key_label(i)` -> "llave kᵢ", `neuron(93)` -> "neurona 93", `w1(384, 1536)` -> "W₁ (384 × 1 536)";
- TeX strings for `ty.math` (`ffn_tex()`, `key_tex()`...), for a scene that builds a bigger formula
  or isolates parts of one;
- ready formulas, `MathTex` through `scenes.kit.typography.math`: `ffn_formula("ReLU")`,
  `swiglu_formula()`, `ffn_sum_formula()`, `residual_ffn()`, `residual_attention()`.

Figures inside a label (a shape, a neuron's index) are passed in: the numbers the scene read
through `self.number`, never typed here.

`RETIRED` lists the alternatives the lecture no longer writes (a regular expression, and what
to write instead); `retired_in(text)` finds them in one visible string, and the scene contract
(`tests/test_scene_contract.py`) fails on any visible string of any scene that uses one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from manim import MathTex

from scenes.kit import typography as ty

# -- words -----------------------------------------------------------------------------------
KEY = "llave"  # neuron i's k_i (a column of W1), and K in attention
KEYS = "llaves"
VALUE = "valor"  # neuron i's v_i (a row of W2), and V in attention
VALUES = "valores"
QUERY = "consulta"  # Q in attention
QUERIES = "consultas"
# The English words appear once, in `stamps`, as a gloss: «llave (en inglés, key)».
KEY_GLOSS = "llave (en inglés, key)"
VALUE_GLOSS = "valor (en inglés, value)"
# Attention's three matrices: letter and Spanish word, in the order Q, K, V.
ATTENTION_NAMES = (("Q", QUERY), ("K", KEY), ("V", VALUE))

BLOCK = "bloque"  # one transformer block: attention + FFN, each with its norm and residual
BLOCKS = "bloques"
FFN_LAYER = "capa feed-forward"  # the FFN sublayer of a block (or «la FFN»)
ATTENTION_LAYER = "capa de atención"  # the attention sublayer of a block
NEURON = "neurona"
NEURONS = "neuronas"
ATTENTION = "Atención"  # the sublayer's name in a formula: x ← x + Atención(Norm(x))
NORM = "Norm"  # the norm's generic name in a formula (a scene on LLaMA may say "RMSNorm")

ELEMENTWISE = "⊙"  # elementwise (Hadamard) product; ⊗ is not used in this lecture
ELEMENTWISE_TEX = r"\odot"
TRANSPOSE = "ᵀ"  # only where a scene shows PyTorch's stored layout, and says «traspuesta»
TRANSPOSE_TEX = r"^{\top}"
RESIDUAL_ARROW = "←"

# Model display names (docs/notation.md, "Model names"); each model also wears its badge
# (`scenes.kit.badges.model_badge`). Keys are the badges' keys.
MODEL_NAMES = {
    "minilm": "MiniLM",
    "fact_model": "el modelo de hechos",
    "llama2_7b": "LLaMA-2 7B",
    "gpt2_small": "GPT-2 pequeño",
}
# The registry's display names (`params.<model>.display_name`, as the authors write them) that
# the lecture writes another way on screen.
_SPANISH_DISPLAY = {"GPT-2 small": "GPT-2 pequeño", "all-MiniLM-L6-v2": "MiniLM"}


def model_name(key: str, *, capitalized: bool = False) -> str:
    """'gpt2_small' -> 'GPT-2 pequeño'; 'fact_model' -> 'el modelo de hechos' ('El modelo de
    hechos' with `capitalized`, at the start of a line)."""
    try:
        name = MODEL_NAMES[key]
    except KeyError:
        raise KeyError(f"unknown model {key!r} (known: {', '.join(MODEL_NAMES)})") from None
    return name[:1].upper() + name[1:] if capitalized else name


def display_name(registered: str) -> str:
    """A model's name as the registry holds it (`params.gpt2_small.display_name` = 'GPT-2 small')
    -> as the lecture writes it ('GPT-2 pequeño'); other names are kept ('LLaMA-2 7B')."""
    return _SPANISH_DISPLAY.get(registered, registered)


# -- subscripts --------------------------------------------------------------------------------
_SUB = str.maketrans("0123456789ij+-", "₀₁₂₃₄₅₆₇₈₉ᵢⱼ₊₋")


def subscript(index: int | str) -> str:
    """93 -> '₉₃', 'i' -> 'ᵢ' (digits, i and j only: what DejaVu Sans has as subscripts)."""
    text = str(index)
    out = text.translate(_SUB)
    if any(ch not in "₀₁₂₃₄₅₆₇₈₉ᵢⱼ₊₋" for ch in out):
        raise ValueError(f"no subscript form for {text!r}: use a TeX label (key_tex) instead")
    return out


# -- keys, values, neurons -------------------------------------------------------------------
def key_symbol(i: int | str = "i") -> str:
    """'kᵢ'; key_symbol(93) -> 'k₉₃' (neuron 93's key: column 93 of W₁)."""
    return "k" + subscript(i)


def value_symbol(i: int | str = "i") -> str:
    """'vᵢ'; value_symbol(93) -> 'v₉₃' (neuron 93's value: row 93 of W₂)."""
    return "v" + subscript(i)


def key_label(i: int | str = "i") -> str:
    """'llave kᵢ'."""
    return f"{KEY} {key_symbol(i)}"


def value_label(i: int | str = "i") -> str:
    """'valor vᵢ'."""
    return f"{VALUE} {value_symbol(i)}"


def key_tex(i: int | str = "i") -> str:
    return f"k_{{{i}}}"


def value_tex(i: int | str = "i") -> str:
    return f"v_{{{i}}}"


def neuron(i: int, *, capitalized: bool = False) -> str:
    """neuron(93) -> 'neurona 93': indices count from 0, like the code, and are written without
    thousands groups (an index, not a quantity)."""
    if isinstance(i, bool) or int(i) != i or i < 0:
        raise ValueError(f"a neuron index is an integer from 0 (got {i!r})")
    return f"{'Neurona' if capitalized else NEURON} {int(i)}"


# -- matrices --------------------------------------------------------------------------------
_MATRIX_ROLES = {1: "W₁", 2: "W₂", 3: "W₃"}


def shape(rows: int, cols: int) -> str:
    """(4096, 11008) -> '4 096 × 11 008' (grouped like every count on screen)."""
    return f"{ty.fmt_int(rows)} × {ty.fmt_int(cols)}"


def matrix(n: int, rows: int | None = None, cols: int | None = None, *, transposed: bool = False) -> str:
    """matrix(1) -> 'W₁'; matrix(1, 384, 1536) -> 'W₁ (384 × 1 536)'; `transposed` -> 'W₂ᵀ' (only
    where a scene shows PyTorch's stored layout, and says «traspuesta»)."""
    if n not in _MATRIX_ROLES:
        raise ValueError(f"the lecture's FFN matrices are W₁, W₂ (and SwiGLU's W₃), not W{n}")
    name = _MATRIX_ROLES[n] + (TRANSPOSE if transposed else "")
    if rows is None and cols is None:
        return name
    if rows is None or cols is None:
        raise ValueError("give both rows and cols, or neither")
    return f"{name} ({shape(rows, cols)})"


def w1(d_model: int | None = None, d_ff: int | None = None) -> str:
    """'W₁ (d_model × d_ff)': expands (in SwiGLU, the gate, through Swish)."""
    return matrix(1, d_model, d_ff)


def w2(d_ff: int | None = None, d_model: int | None = None) -> str:
    """'W₂ (d_ff × d_model)': contracts, back to the model's width."""
    return matrix(2, d_ff, d_model)


def w3(d_model: int | None = None, d_ff: int | None = None) -> str:
    """'W₃ (d_model × d_ff)': SwiGLU's linear path."""
    return matrix(3, d_model, d_ff)


def matrix_tex(n: int, *, transposed: bool = False) -> str:
    """'W_1' (or 'W_2^{\\top}') for a formula."""
    if n not in _MATRIX_ROLES:
        raise ValueError(f"the lecture's FFN matrices are W_1, W_2 (and SwiGLU's W_3), not W_{n}")
    return f"W_{n}" + (TRANSPOSE_TEX if transposed else "")


def shape_tex(rows: int, cols: int) -> str:
    """(384, 1536) -> '384 \\times 1\\,536' for a formula."""
    return rf"{ty.fmt_int(rows)} \times {ty.fmt_int(cols)}".replace(ty.THIN_SPACE, r"\,")


# -- formulas --------------------------------------------------------------------------------
_ACTIVATIONS = {"f": "f", "ReLU": r"\mathrm{ReLU}", "GELU": r"\mathrm{GELU}"}


def _activation_tex(activation: str) -> str:
    try:
        return _ACTIVATIONS[activation]
    except KeyError:
        raise ValueError(
            f"activation {activation!r}: use 'f', 'ReLU' or 'GELU' (SwiGLU has its own formula: swiglu_formula)"
        ) from None


def ffn_tex(activation: str = "f", *, biases: bool = True, lhs: bool = True) -> str:
    """'FFN(x) = ReLU(x W₁ + b₁) W₂ + b₂' in TeX (x a row vector; without `biases`, for a model
    that has none)."""
    f = _activation_tex(activation)
    inner = r"x\,W_1 + b_1" if biases else r"x\,W_1"
    body = rf"{f}({inner})\,W_2" + (" + b_2" if biases else "")
    return (r"\mathrm{FFN}(x) = " if lhs else "") + body


def swiglu_tex(*, lhs: bool = True) -> str:
    """'FFN(x) = (Swish(x W₁) ⊙ x W₃) W₂' in TeX (LLaMA: W₁ the gate, W₃ the linear path, no biases)."""
    body = r"\big(\mathrm{Swish}(x\,W_1) \odot x\,W_3\big)\,W_2"
    return (r"\mathrm{FFN}(x) = " if lhs else "") + body


def neuron_term_tex(activation: str = "f", i: int | str = "i") -> str:
    """One neuron's contribution, 'f(x · kᵢ + b₁ᵢ) vᵢ', in TeX."""
    return rf"{_activation_tex(activation)}(x \cdot {key_tex(i)} + b_{{1,{i}}})\,{value_tex(i)}"


def ffn_sum_tex(activation: str = "f", *, lhs: bool = True) -> str:
    """'FFN(x) = Σᵢ f(x · kᵢ + b₁ᵢ) vᵢ + b₂' in TeX: the FFN as a sum over its neurons."""
    body = r"\sum_i " + neuron_term_tex(activation) + " + b_2"
    return (r"\mathrm{FFN}(x) = " if lhs else "") + body


def _norm_tex(norm: str | None, arg: str) -> str:
    return arg if norm is None else rf"\mathrm{{{norm}}}({arg})"


def residual_ffn_tex(norm: str | None = NORM) -> str:
    """'x ← x + FFN(Norm(x))' (pre-norm); `norm=None` for a toy model without norms: 'x ← x + FFN(x)'."""
    return rf"x \leftarrow x + \mathrm{{FFN}}({_norm_tex(norm, 'x')})"


def residual_attention_tex(norm: str | None = NORM) -> str:
    """'x ← x + Atención(Norm(x))' (pre-norm)."""
    return rf"x \leftarrow x + \text{{{ATTENTION}}}({_norm_tex(norm, 'x')})"


def ffn_formula(activation: str = "f", *, biases: bool = True, lhs: bool = True, **kwargs) -> MathTex:
    """The ReLU/GELU FFN as a formula (`ffn_tex`); kwargs go to MathTex (color, substrings_to_isolate...)."""
    return ty.math(ffn_tex(activation, biases=biases, lhs=lhs), **kwargs)


def swiglu_formula(*, lhs: bool = True, **kwargs) -> MathTex:
    """SwiGLU's FFN as a formula (`swiglu_tex`)."""
    return ty.math(swiglu_tex(lhs=lhs), **kwargs)


def ffn_sum_formula(activation: str = "f", *, lhs: bool = True, **kwargs) -> MathTex:
    """The FFN as a sum of its neurons' contributions (`ffn_sum_tex`)."""
    return ty.math(ffn_sum_tex(activation, lhs=lhs), **kwargs)


def residual_ffn(norm: str | None = NORM, **kwargs) -> MathTex:
    """'x ← x + FFN(Norm(x))'; `norm=None` only for a model without norms (and the scene says so)."""
    return ty.math(residual_ffn_tex(norm), **kwargs)


def residual_attention(norm: str | None = NORM, **kwargs) -> MathTex:
    """'x ← x + Atención(Norm(x))'."""
    return ty.math(residual_attention_tex(norm), **kwargs)


def residual_ffn_text(norm: str | None = NORM) -> str:
    """The same update as plain text, for a label: 'x ← x + FFN(Norm(x))'."""
    return f"x {RESIDUAL_ARROW} x + FFN({'x' if norm is None else f'{norm}(x)'})"


def residual_attention_text(norm: str | None = NORM) -> str:
    """'x ← x + Atención(Norm(x))' as plain text."""
    return f"x {RESIDUAL_ARROW} x + {ATTENTION}({'x' if norm is None else f'{norm}(x)'})"


# -- figures by kind (docs/notation.md, "Precision") -------------------------------------------
def share(ratio: float) -> str:
    """A share of parameters or an accuracy: one decimal, '66,8 %'."""
    return ty.fmt_percent(ratio, 1)


def probability(p: float) -> str:
    """A probability: '98,0 %'; under 0,05 % '< 0,1 %' (never '0,0 %')."""
    return ty.fmt_probability(p)


def activation(x: float) -> str:
    """An activation or a dot product: two decimals, '1,31'."""
    return ty.fmt_decimal(x, 2)


def logit(x: float) -> str:
    """A logit, named as such: 'logit +1,20'."""
    text = ty.fmt_decimal(x, 2)
    return f"logit {'+' if not text.startswith(('−', '-')) and x != 0 else ''}{text}"


def points(delta: float, places: int = 1) -> str:
    """A difference of two percentages: '+85,5 puntos porcentuales' (delta as a ratio, 0.855)."""
    text = ty.fmt_decimal(delta * 100, places)
    sign = "+" if delta > 0 and not text.startswith("−") else ""
    return f"{sign}{text} puntos porcentuales"


def approximately(x: float, places: int = 1) -> str:
    """A width that is not an integer: '≈ 10 922,7'."""
    return f"≈ {ty.fmt_decimal(x, places)}"


# -- retired alternatives ----------------------------------------------------------------------
@dataclass(frozen=True)
class Retired:
    """A way of writing the lecture no longer uses, and what to write instead."""

    pattern: re.Pattern[str]
    instead: str

    def find(self, text: str) -> list[str]:
        return [m.group(0) for m in self.pattern.finditer(text)]


def _r(pattern: str, instead: str, flags: int = 0) -> Retired:
    return Retired(re.compile(pattern, flags), instead)


_I = re.IGNORECASE
# The English gloss of `stamps` («llave (en inglés, key)») is the one place the English words stand.
_NOT_GLOSS = r"(?<!en inglés, )(?<!en inglés: )"
RETIRED: tuple[Retired, ...] = (
    _r(_NOT_GLOSS + r"\bvalues?\b", "«valor» (notation.VALUE, value_label(i) -> «valor vᵢ»)", _I),
    _r(_NOT_GLOSS + r"\bkeys?\b", "«llave» (notation.KEY, key_label(i) -> «llave kᵢ»)", _I),
    _r(r"\bclaves?\b", "«llave» (K en atención: notation.ATTENTION_NAMES)", _I),
    _r(
        r"W_\{?\s*(?:\\(?:mathrm|text|rm|textrm)\s*\{\s*)?(?:in|out|up|down)\b", "W₁ / W₂ (notation.w1, w2, matrix_tex)"
    ),
    _r(r"W(?:ᵢₙ|ₒᵤₜ)", "W₁ / W₂ (notation.w1, w2)"),
    _r(r"⊗|\\otimes\b", "⊙ for the elementwise product (notation.ELEMENTWISE); an outer product is written u kᵀ"),
    _r(r"GPT-?2[\s\u00a0\u202f]+small\b", "«GPT-2 pequeño» (notation.model_name('gpt2_small'))", _I),
    _r(r"\bAttn\b\}?\s*\(", "«Atención(Norm(x))» (notation.residual_attention)"),
    _r(r"\bAttention\b\}?\s*\(", "«Atención(Norm(x))» (notation.residual_attention)"),
    _r(r"\bunidad(?:es)?[\s\u00a0\u202f]+\d", "«neurona N», counted from 0 (notation.neuron(i))", _I),
    _r(r"\bvídeos?\b", "«video» (es-419)", _I),
)

# What the voice no longer says (docs/notation.md, "Spoken Spanish"); the lexicon coverage test
# (tests/test_lexicon_coverage.py) fails on a script that says one.
SPOKEN_RETIRED: tuple[Retired, ...] = (
    _r(_NOT_GLOSS + r"\bvalues?\b", "«valor» (the English once, in stamps: «valor (en inglés, value)»)", _I),
    _r(_NOT_GLOSS + r"\bkeys?\b", "«llave» (the English once, in stamps: «llave (en inglés, key)»)", _I),
    _r(r"\bvídeos?\b", "«video» (es-419)", _I),
    _r(r"\buve doble\b", "«doble ve» (es-419)", _I),
    _r(r"\buve\b(?! doble)", "«ve» (es-419)", _I),
    _r(r"\b(?:millones|miles|mil) de pesos\b", "«parámetros» (a count of weights; «pesos» sounds like money)", _I),
)


def retired_in(text: str) -> list[tuple[str, str]]:
    """(what was written, what to write instead) for every retired alternative in `text`."""
    return [(found, r.instead) for r in RETIRED for found in r.find(text)]


def notation_problems(visible_texts: dict[str, list[str]]) -> list[str]:
    """One line per retired alternative in a scene's visible strings ({beat: [strings]})."""
    problems = []
    for beat, texts in visible_texts.items():
        for text in dict.fromkeys(texts):
            for found, instead in retired_in(text):
                problems.append(f"beat '{beat}': {text!r} escribe {found!r}; en su lugar: {instead}")
    return problems
