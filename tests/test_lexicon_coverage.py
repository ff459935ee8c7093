"""Every word the voice speaks is Spanish, or the lexicon says how to read it.

For every narration script (`voiceover/script/es/*.toml`, every script the plan plays), each
beat's spoken text as the engine gets it (bookmarks removed, `{clave:formato}` fields rendered
as the words `voiceover.spoken` says) is cut into words the way the lexicon cuts them
(whitespace, then the punctuation around a word). A word passes when:
- the lexicon (`voiceover/lexicon.es.toml`, `[respell]`) respells it: English and technical words,
  with their Latin-American reading; or
- it is a Spanish word: in Debian's word list `wspanish` (/usr/share/dict/spanish, installed by
  setup.sh), directly or as a regular inflection of a word there (the list holds lemmas only:
  «neurona», not «neuronas»; «aprender», not «aprendió»), or in the lexicon's short `[spanish]`
  list of Spanish words the word list lacks, each with its reason.
Case and accents: a word is looked up in lower case (so «Para» at a sentence's start is «para»)
and without its written accents (an inflection moves them: «canción», «canciones»). A word in
capitals («XOR», «FFN») is an acronym: the lexicon must say it.

The test fails naming the script file, the beat and each word.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from functools import cache
from pathlib import Path

import pytest

from voiceover.engines.lexicon import _WORD_RE, LEXICON_PATH, load_lexicon
from voiceover.paths import SCRIPT_DIR
from voiceover.script import BOOKMARK_RE, FIELD_RE, Script, parse_script

WORD_LIST = Path("/usr/share/dict/spanish")


# -- the word list, without accents ---------------------------------------------------------
def fold(word: str) -> str:
    """Lower case, written accents and diaeresis removed, ñ kept: 'Canción' -> 'cancion'."""
    out = []
    for ch in word.lower():
        if ch == "ñ":
            out.append(ch)
            continue
        out.append("".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c)))
    return "".join(out)


@cache
def dictionary() -> frozenset[str]:
    if not WORD_LIST.exists():
        pytest.fail(f"{WORD_LIST} is missing: setup.sh installs it (apt-get install wspanish)")
    return frozenset(fold(w) for w in WORD_LIST.read_text(encoding="utf-8").split())


# -- regular inflection -----------------------------------------------------------------------
# Endings of the regular conjugations, by the infinitive they come from. Forms of the three
# conjugations that share an ending are listed under each.
_AR = (
    "o as a amos ais an e es emos eis en "  # present, subjunctive present
    "e aste o amos asteis aron "  # preterite
    "aba abas abamos abais aban "  # imperfect
    "are aras ara aremos areis aran "  # future
    "aria arias ariamos ariais arian "  # conditional (folded: «-aría»)
    "ara aras aramos arais aran ase ases asemos aseis asen "  # subjunctive imperfect
    "ad ando ado ada ados adas ar"
).split()
_ER = (
    "o es e emos eis en a as amos ais an "
    "i iste io imos isteis ieron "
    "ia ias iamos iais ian "
    "ere eras era eremos ereis eran "  # future: comeré, veremos
    "eria erias eriamos eriais erian "
    "iera ieras ieramos ierais ieran iese ieses iesemos ieseis iesen "
    "ed iendo ido ida idos idas er yo yeron yendo"
).split()
_IR = (
    "o es e imos is en a as amos ais an "
    "i iste io imos isteis ieron "
    "ia ias iamos iais ian "
    "ire iras ira iremos ireis iran "
    "iria irias iriamos iriais irian "
    "iera ieras ieramos ierais ieran iese ieses iesemos ieseis iesen "
    "id iendo ido ida idos idas ir yo yeron yendo ye yen ya yan yes"
).split()
_CONJUGATIONS = (("ar", _AR), ("er", _ER), ("ir", _IR))
_CLITICS = ("me", "te", "se", "nos", "os", "lo", "la", "los", "las", "le", "les")
# The irregular verbs' stems and forms that no ending rule reaches (folded, without accents).
_IRREGULAR = {
    "ser": "soy eres es somos sois son fui fue fuimos fueron era eras eramos eran sea seas seamos sean sido siendo "
    "sera seran seria serian fuera fueran sed",
    "estar": "estoy esta estan estuve estuvo estuvimos estuvieron este esten estemos estuviera",
    "ir": "voy vas va vamos van ve iba ibas ibamos iban vaya vayan vayamos ido yendo fuimos",
    "haber": "he has ha hemos han hay hube hubo hubieron habra habran habria habrian haya hayan hubiera hubieran",
    "tener": "tengo tiene tienes tienen tuve tuvo tuvieron tendra tendran tendria tendrian tenga tengan tuviera",
    "hacer": "hago hace hacen hice hizo hicimos hicieron hara haran haremos haria harian haga hagan hagamos hecho "
    "hiciera haz",
    "decir": "digo dice dices dicen dije dijo dijimos dijeron dira diran diremos diria dirian diga digan digamos dicho "
    "diciendo dijera",
    "poder": "puedo puede puedes pueden pude pudo pudimos pudieron podra podran podremos podria podrian pueda puedan "
    "pudiera pudiendo",
    "poner": "pongo pone ponen puse puso pusimos pusieron pondra pondremos pondria ponga pongan pongamos puesto pon",
    "saber": "se sabe saben supe supo supimos supieron sabra sabremos sabria sepa sepan sepamos supiera",
    "querer": "quiero quiere quieren quise quiso quisimos quisieron querra querria quiera quieran quisiera",
    "venir": "vengo viene vienen vine vino vinimos vinieron vendra vendremos vendria venga vengan veamos viniera "
    "viniendo ven",
    "dar": "doy da dan di dio dimos dieron de den demos diera",
    "ver": "veo ve ves ven vi vio vimos vieron vea vean veamos visto viendo veia veian",
    "salir": "salgo saldra saldremos saldria salga salgan salgamos",
    "valer": "valgo valdra valdria valga",
    "caber": "quepo cabe caben cupo cabra quepa",
    "traer": "traigo traje trajo trajimos trajeron traiga traigamos",
    "oir": "oigo oye oyen oyo oiga",
    "morir": "muerto",
    "volver": "vuelto",
    "escribir": "escrito",
    "abrir": "abierto",
    "cubrir": "cubierto",
    "romper": "roto",
    "resolver": "resuelto",
    "imprimir": "impreso",
}
_IRREGULAR_FORMS = {form: verb for verb, forms in _IRREGULAR.items() for form in forms.split()}
# Prefixed verbs conjugate like their base: contiene (contener), supone (suponer), deshace (deshacer).
_PREFIXES = ("con", "ob", "man", "re", "sos", "de", "sup", "com", "pro", "ex", "dis", "pre", "des", "a", "pos", "ab")
# Productive prefixes of Spanish words the list holds without them: preentrenado, reescala, subcapa.
_WORD_PREFIXES = ("pre", "re", "sub", "des", "super", "inter", "sobre", "contra", "auto", "multi", "semi", "anti", "co")


def _stem_variants(stem: str, infinitive: str) -> set[str]:
    """A conjugated stem and the infinitive stems it may come from: stem changes (piens-/pens-,
    pued-/pod-, and for -ir verbs pid-/ped-) and spelling changes (busqu-/busc-, llegu-/lleg-,
    empiec-/empez-, elij-/elig-, conozc-/conoc-, sig-/segu-)."""
    out = {stem}
    changes = [("ie", "e"), ("ue", "o"), ("ue", "u"), ("y", "i")] + ([("i", "e")] if infinitive == "ir" else [])
    for old, new in changes:
        i = stem.rfind(old)
        if i >= 0:
            out.add(stem[:i] + new + stem[i + len(old) :])
    for old, new in (("qu", "c"), ("gu", "g"), ("c", "z"), ("j", "g"), ("zc", "c"), ("g", "gu"), ("gu", "gu")):
        for s in list(out):
            if s.endswith(old):
                out.add(s[: -len(old)] + new)
    return out


def _verb_lemmas(word: str) -> set[str]:
    """Infinitives `word` may be a regular (or listed irregular) form of."""
    found = set()
    if word in _IRREGULAR_FORMS:
        found.add(_IRREGULAR_FORMS[word])
    for prefix in _PREFIXES:
        rest = word[len(prefix) :]
        if word.startswith(prefix) and rest in _IRREGULAR_FORMS:
            found.add(prefix + _IRREGULAR_FORMS[rest])
    for infinitive, endings in _CONJUGATIONS:
        for ending in endings:
            if word.endswith(ending) and len(word) - len(ending) >= 1:
                for stem in _stem_variants(word[: -len(ending)], infinitive):
                    found.add(stem + infinitive)
    return found


def _without_clitics(word: str) -> set[str]:
    """'dandole' -> {'dandole', 'dando'}; 'ponemoslo' -> 'ponemos'; at most two pronouns."""
    out = {word}
    for _ in range(2):
        for w in list(out):
            for clitic in _CLITICS:
                base = w[: -len(clitic)]
                if w.endswith(clitic) and len(base) >= 2 and (base.endswith(("r", "ndo")) or base[-1] in "aeiosn"):
                    out.add(base)
                    if clitic == "nos" and base.endswith("mo"):
                        out.add(base + "s")  # alejemos + nos -> alejémonos
    return out


def _nominal_lemmas(word: str) -> set[str]:
    """Plural, feminine, -mente, superlative and diminutive forms back to the listed word."""
    out = {word}
    if word.endswith("ces"):
        out.add(word[:-3] + "z")
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    for w in list(out):
        for ending, verb in (("acion", "ar"), ("icion", "ir"), ("icion", "er")):
            if w.endswith(ending):
                out.add(w[: -len(ending)] + ("a" if verb == "ar" else "i") + "r")  # activación <- activar
                if verb == "er":
                    out.add(w[: -len(ending)] + "er")
        if w.endswith("a"):
            out.add(w[:-1] + "o")
            if w[-2:-1] in ("r", "n", "l", "s", "z", "d"):
                out.add(w[:-1])  # profesora -> profesor, leona -> león
        if w.endswith("mente"):
            adjective = w[: -len("mente")]
            out |= {adjective, adjective[:-1] + "o"} if adjective.endswith("a") else {adjective}
        for ending in ("isimo", "isima", "ito", "ita", "illo", "illa"):
            if w.endswith(ending) and len(w) > len(ending) + 2:
                base = w[: -len(ending)]
                out |= {base, base + "o", base + "a", base + "e"}
    return out


@cache
def _with(extra: frozenset[str]) -> frozenset[str]:
    return dictionary() | extra


def is_spanish(word: str, extra: frozenset[str] = frozenset()) -> bool:
    """True when `word` is in the word list, in `extra`, or a regular inflection of a listed word."""
    w = fold(word)
    words = _with(extra)
    if w in words:
        return True
    if _inflection_of(w, words):
        return True
    # A productive prefix on a word that is Spanish without it.
    return any(
        w.startswith(p) and len(w) - len(p) >= 4 and (w[len(p) :] in words or _inflection_of(w[len(p) :], words))
        for p in _WORD_PREFIXES
    )


def _inflection_of(w: str, words: frozenset[str]) -> bool:
    for base in _without_clitics(w):
        if base in words or any(n in words for n in _nominal_lemmas(base)):
            return True
        if any(v in words for v in _verb_lemmas(base)):
            return True
    return False


# -- the lexicon --------------------------------------------------------------------------------
@cache
def spanish_allowed() -> dict[str, str]:
    """The lexicon's `[spanish]` table: a Spanish word `wspanish` lacks -> why it is one."""
    data = tomllib.loads(LEXICON_PATH.read_text(encoding="utf-8"))
    return dict(data.get("spanish", {}))


@cache
def _allowed_folded() -> frozenset[str]:
    return frozenset(fold(w) for w in spanish_allowed())


def covered(token: str) -> bool:
    """One whitespace-free token of spoken text: respelled by the lexicon, or Spanish."""
    lexicon = load_lexicon()
    if lexicon.word(token) != token:
        return True  # respelled: the lexicon says how it sounds
    match = _WORD_RE.match(token)
    assert match is not None
    core = match.group(2)
    if not re.search(r"[^\W\d_]", core):
        return True  # punctuation or a dash between clauses
    extra = _allowed_folded()
    if len(core) > 1 and core.isupper():
        return fold(core) in extra  # an acronym is read as the lexicon says, not guessed
    if len(core) == 1 and fold(core) not in "aeouy":
        return False  # a letter: the lexicon names it as Latin America does («ve», «doble ve»)
    parts = [p for p in re.split(r"[-–—/]", core) if p]
    return bool(parts) and all(
        is_spanish(p, extra) and not (len(p) > 1 and p.isupper() and fold(p) not in extra) for p in parts
    )


# -- the scripts as spoken ----------------------------------------------------------------------
def script_files() -> list[Path]:
    """Every narration file: each script the plan plays is one of these."""
    return sorted(SCRIPT_DIR.glob("*.toml"))


def spoken_text(segment: str) -> str:
    """A segment as the engine gets it (before the lexicon): fields said as words."""
    from ffn_core.registry import number
    from voiceover.spoken import resolve_field

    def said(m: re.Match[str]) -> str:
        try:
            return resolve_field(m.group(1), lambda key: number(key).value).spoken
        except Exception:  # noqa: BLE001 - a field that does not resolve is the scene contract's to report
            return " "

    return FIELD_RE.sub(said, BOOKMARK_RE.sub(" ", segment))


def _load_words_only(path: Path) -> Script:
    """The script as the parser reads it, its beats' `sources` aside: whether a cited key exists
    is the bibliography's test, not this one's."""
    raw = path.read_text(encoding="utf-8")
    data = tomllib.loads(raw)
    for beat in data.get("beat", []):
        if isinstance(beat, dict):
            beat.pop("sources", None)
    return parse_script(path.stem, data, raw, path)


def uncovered(path: Path) -> list[tuple[str, str]]:
    """(beat, word) of every spoken word of the script at `path` that is neither Spanish nor in
    the lexicon, each once per beat."""
    script = _load_words_only(path)
    found: list[tuple[str, str]] = []
    for beat in script.beats:
        for segment in beat.segments:
            for token in spoken_text(segment).split():
                if not covered(token):
                    core = _WORD_RE.match(token).group(2)  # type: ignore[union-attr]  # every token matches
                    if (beat.name, core) not in found:
                        found.append((beat.name, core))
    return found


def _shown(path: Path) -> str:
    root = SCRIPT_DIR.parent.parent.parent
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


# -- tests --------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", script_files(), ids=lambda p: p.stem)
def test_every_word_a_script_speaks_is_spanish_or_in_the_lexicon(path):
    missing = uncovered(path)
    assert not missing, (
        f"{_shown(path)}: words the voice would guess at "
        "(add each to voiceover/lexicon.es.toml: [respell] with its es-419 reading, or, for a "
        "Spanish word the word list lacks, [spanish] with why):\n"
        + "\n".join(f"  beat '{beat}': {word}" for beat, word in missing)
    )


def test_plan_scripts_are_all_checked():
    from lecture.plan import load_plan

    try:
        plan = load_plan()
    except ValueError as err:  # a planned scene still being written
        pytest.skip(f"plan does not load yet: {err}")
    from voiceover.paths import script_path

    files = {p.resolve() for p in script_files()}
    for scene in plan:
        assert (scene.script_path or script_path(scene.script)).resolve() in files, scene.name


@pytest.mark.parametrize(
    "word",
    ["neuronas", "aprendió", "busquemos", "Para", "canciones", "ponemos", "enciende", "rápidamente", "dámelo"],
)
def test_inflected_and_capitalised_spanish_words_pass(word):
    assert covered(word)


@pytest.mark.parametrize("word", ["lemon", "horse", "river", "seven", "twelve", "json", "Kokoro", "Manim", "Swish"])
def test_english_and_technical_words_are_caught_unless_the_lexicon_has_them(word):
    assert not is_spanish(word), word  # the word list alone does not let it through


def test_a_word_nobody_taught_the_voice_fails_naming_file_beat_and_word(tmp_path):
    script = tmp_path / "demo.toml"
    script.write_text(
        'title = "Prueba"\n[[beat]]\nname = "uno"\ntext = "La neurona responde a {#marca} blorptastic."\n'
        '[[beat]]\nname = "dos"\ntext = "Las neuronas, sin zyzzyva ni blorptastic."\n',
        encoding="utf-8",
    )
    assert uncovered(script) == [("uno", "blorptastic"), ("dos", "zyzzyva"), ("dos", "blorptastic")]
    with pytest.raises(AssertionError, match=r"demo.toml(.|\n)*beat 'dos': zyzzyva"):
        test_every_word_a_script_speaks_is_spanish_or_in_the_lexicon(script)


def test_an_acronym_must_be_in_the_lexicon():
    assert covered("FFN") and covered("XOR")  # in [respell]
    assert not covered("QKV")


def test_every_spanish_allow_list_entry_says_why_and_is_not_already_covered():
    for word, why in spanish_allowed().items():
        assert isinstance(why, str) and len(why.split()) >= 2, f"[spanish] {word}: say why it is Spanish"
        w = fold(word)
        listed = w in dictionary() or any(
            b in dictionary()
            or any(n in dictionary() for n in _nominal_lemmas(b))
            or any(v in dictionary() for v in _verb_lemmas(b))
            for b in _without_clitics(w)
        )
        assert not listed, f"[spanish] {word}: the word list already has it; remove the entry"


@pytest.mark.parametrize("path", script_files(), ids=lambda p: p.stem)
def test_no_script_says_a_retired_word(path):
    # docs/notation.md, "Spoken Spanish": «video», «ve», «doble ve», «llave», «valor», «parámetros».
    from scenes.kit.notation import SPOKEN_RETIRED

    script = _load_words_only(path)
    said = [
        f"  beat '{beat.name}': {found!r} in {text!r}; say {r.instead}"
        for beat in script.beats
        for text in [" ".join(spoken_text(seg) for seg in beat.segments)]
        for r in SPOKEN_RETIRED
        for found in r.find(" ".join(text.split()))
    ]
    assert not said, f"{_shown(path)}:\n" + "\n".join(said)


@pytest.mark.parametrize(
    "text, caught",
    [
        ("un value que espera su key", ["value", "key"]),
        ("en este vídeo", ["vídeo"]),
        ("la uve y la uve doble", ["uve doble", "uve"]),
        ("unos sesenta y siete millones de pesos", ["millones de pesos"]),
        ("una llave (en inglés, key) y un valor (en inglés, value)", []),
    ],
)
def test_the_spoken_check_catches_retired_words_and_spares_the_gloss(text, caught):
    from scenes.kit.notation import SPOKEN_RETIRED

    assert sorted(f for r in SPOKEN_RETIRED for f in r.find(text)) == sorted(caught)


def test_letters_are_said_as_latin_america_names_them_and_xor_one_way():
    lexicon = load_lexicon()
    assert lexicon.respell("la W, la V y la v.") == "la doble ve, la ve y la ve."  # espeak-ng alone: «uve»
    assert lexicon.respell("XOR") == "equis o erre"
    assert lexicon.respell("y a o") == "y a o"  # Spanish words of one letter stay
