"""`ffn-video handout`: the students' notes, `renders/<quality>/handout.pdf`.

Per scene a page or two: every beat's last frame (from the scene video, as the storyboard
takes stills) with the narration of that beat beside it; the numbers the scene showed, each
with its kind and source as `ffn-video numbers` audits them (computed by `ffn_core`, a
model's published configuration, a quoted figure); and the works its beats cite. Made from
HTML with a print stylesheet by WeasyPrint: A4, its fonts (DejaVu, which has every Spanish
letter) embedded, its text selectable. Stills and the page's HTML stay in
`renders/<quality>/handout/`.
"""

from __future__ import annotations

import html
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lecture.classroom.lesson import Chapter, chapters, seconds_es
from lecture.classroom.stills import LAST, write_stills
from lecture.layout import for_quality
from lecture.plan import PlannedScene
from voiceover.atomic import atomic_path, write_text
from voiceover.references import Reference, load_references

KIND_ES = {"computed": "calculado", "published": "publicado", "quoted": "citado"}
# The registry's units (`ffn_core.registry`), as a student reads them.
UNIT_ES = {"parameters": "parámetros", "fraction (0-1)": "fracción (0–1)", "dimensions": "dimensiones"}

STYLE = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm;
  @bottom-center { content: "Apuntes de la clase · página " counter(page) " de " counter(pages);
                   font: 8pt "DejaVu Sans"; color: #666; } }
body { font: 9.5pt/1.4 "DejaVu Sans", sans-serif; color: #111; }
h1 { font-size: 20pt; margin: 0 0 4mm; }
h2 { font-size: 14pt; margin: 0 0 3mm; border-bottom: 0.4mm solid #335; padding-bottom: 1mm; }
h3 { font-size: 10.5pt; margin: 4mm 0 1.5mm; }
section.scene { break-before: page; }
.beat { display: flex; gap: 4mm; margin: 0 0 3mm; break-inside: avoid; }
.beat img { width: 82mm; border: 0.2mm solid #999; }
.beat .text { flex: 1; }
.beat .label { color: #555; font-size: 8pt; margin-bottom: 1mm; }
table { border-collapse: collapse; width: 100%; font-size: 8.5pt; }
td, th { border-bottom: 0.2mm solid #bbb; padding: 1mm 1.5mm; text-align: left; vertical-align: top; }
th { background: #eef; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 7.5pt; }
ol.refs li { margin-bottom: 1mm; }
.contents li { margin: 1mm 0; }
"""


@dataclass(frozen=True)
class ShownNumber:
    """A number a scene showed, as the audit describes it."""

    key: str
    value: object
    unit: str
    kind: str  # computed | published | quoted
    source: str  # the call that computed it
    citation: str  # for published and quoted numbers: a references key, maybe a locator


@dataclass(frozen=True)
class HandoutReport:
    path: Path
    pages: int
    stills: int
    seconds: float


def shown_numbers(scene: PlannedScene, chapter: Chapter, build_root: Path) -> list[ShownNumber]:
    """The numbers (not the datasets) the scene's render read, with the audit's kind and
    source (`lecture.review.audit.numbers_with_scenes`)."""
    from ffn_core.registry import DATASET_LOG_PREFIX, number
    from lecture.review.audit import numbers_with_scenes

    keys = [k for k, v in chapter.numbers_read.items() if not str(v).startswith(DATASET_LOG_PREFIX)]
    rows = numbers_with_scenes([scene], [number(k) for k in keys], build_root)
    return [
        ShownNumber(r["key"], r["value"], r["unit"], r["kind"], r["source"], r["citation"])
        for r in rows
        if scene.name in r["scenes"]
    ]


def _value(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}".replace(",", "\u202f")  # a narrow space groups thousands, as in Spanish
    if isinstance(value, float):
        return f"{value:.4g}".replace(".", ",")
    if isinstance(value, (list, tuple)):
        return "(" + "; ".join(_value(v) for v in value) + ")"
    return str(value)


def _citation(citation: str, refs: Mapping[str, Reference]) -> str:
    key, _, locator = citation.partition(" ")
    if key in refs:
        return refs[key].short + (f", {locator}" if locator else "")
    return citation


def scene_html(
    chapter: Chapter, stills: Mapping[str, str], numbers: Sequence[ShownNumber], refs: Mapping[str, Reference]
) -> str:
    parts = [f"<section class='scene' id='{html.escape(chapter.name)}'><h2>{html.escape(chapter.title)}</h2>"]
    for beat in chapter.beats:
        cited = "; ".join(refs[k].short if k in refs else k for k in beat.sources)
        parts.append(
            f"<div class='beat'><img src='{html.escape(stills[beat.slug])}' "
            f"alt='{html.escape(chapter.title)}, al final del paso {beat.number}'>"
            f"<div class='text'><div class='label'>Paso {beat.number} de {len(chapter.beats)} · "
            f"{seconds_es(beat.start_s)}–{seconds_es(beat.end_s)} s</div>"
            f"<p>{html.escape(beat.text) or '(sin narración)'}</p>"
            + (f"<p class='label'>Fuente: {html.escape(cited)}</p>" if cited else "")
            + "</div></div>"
        )
    if numbers:
        rows = []
        for n in numbers:
            if n.kind == "computed":
                origin = f"calculado por el código del curso: <code>{html.escape(n.source)}</code>"
            else:
                origin = f"{KIND_ES.get(n.kind, n.kind)}: {html.escape(_citation(n.citation, refs))}"
            rows.append(
                f"<tr><td>{html.escape(_value(n.value))} {html.escape(UNIT_ES.get(n.unit, n.unit))}</td>"
                f"<td><code>{html.escape(n.key)}</code></td><td>{origin}</td></tr>"
            )
        parts.append(
            "<h3>Los números de esta escena</h3><table><tr><th>valor</th><th>clave</th><th>de dónde sale</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    cited_keys = list(
        dict.fromkeys(
            [k for b in chapter.beats for k in b.sources]
            + [n.citation.partition(" ")[0] for n in numbers if n.citation]
        )
    )
    works = [refs[k] for k in cited_keys if k in refs]
    if works:
        parts.append(
            "<h3>Referencias</h3><ol class='refs'>"
            + "".join(f"<li>{html.escape(w.full())}</li>" for w in works)
            + "</ol>"
        )
    parts.append("</section>")
    return "".join(parts)


def render_handout(
    chapters_: Sequence[Chapter],
    stills: Mapping[str, str],
    numbers: Mapping[str, Sequence[ShownNumber]],
    refs: Mapping[str, Reference],
    quality: str,
) -> str:
    contents = "".join(
        f"<li>{html.escape(c.title)} ({len(c.beats)} {'paso' if len(c.beats) == 1 else 'pasos'})</li>"
        for c in chapters_
    )
    return "".join(
        [
            "<!DOCTYPE html>\n<html lang='es'><head><meta charset='utf-8'>",
            "<title>Apuntes de la clase</title>",
            f"<style>{STYLE}</style></head><body>",
            "<h1>Apuntes de la clase</h1>",
            "<p>Cada escena de la clase, paso a paso: la imagen con que termina cada paso y lo que se dice en él; "
            "después, los números que la escena muestra, con su origen, y las obras que cita.</p>",
            f"<ol class='contents'>{contents}</ol>",
            *(scene_html(c, stills, numbers[c.name], refs) for c in chapters_),
            "</body></html>\n",
        ]
    )


def make_handout(plan: Sequence[PlannedScene], quality: str) -> HandoutReport:
    """Write `renders/<quality>/handout.pdf` from the build of `quality`."""
    from weasyprint import HTML

    started = time.monotonic()
    outputs, workspace = for_quality(quality)
    found = chapters(plan, outputs, workspace.folder)
    folder = outputs.folder / "handout"
    stills = write_stills(found, folder, LAST)
    by_name = {scene.name: scene for scene in plan}
    numbers = {c.name: shown_numbers(by_name[c.name], c, workspace.folder.parent) for c in found}
    page = render_handout(found, {slug: p.name for slug, p in stills.items()}, numbers, load_references(), quality)
    write_text(folder / "index.html", page)
    out = outputs.folder / "handout.pdf"
    with atomic_path(out) as tmp:
        document = HTML(string=page, base_url=str(folder)).render()
        document.write_pdf(str(tmp))
    return HandoutReport(out, len(document.pages), len(stills), time.monotonic() - started)
