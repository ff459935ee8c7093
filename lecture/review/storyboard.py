"""The storyboard: the whole lecture on one page, a still at every bookmark and beat end.

A lecturer reviews without watching: for each scene of the plan, each beat, a still taken
from the rendered scene video at every bookmark and at the beat's end, with the narration
of that stretch under it, its time in the scene and in the lecture, the numbers the scene
read, every string the scene showed, beat by beat (the render log's `visible_texts`: texts
as written, formulas as their TeX), so its wording is read without watching, and any layout
problem the render logged for that beat (in red). Each still is measured
(`lecture.review.sparseness`: its drawn share, the height of the drawing that carries it, its
smallest text) and a sparse one is flagged in red, with a table of the scenes' sparse stills
at the top; `ffn-video storyboard --check` fails while any still is flagged. Stills are seeks
into the rendered videos (no re-render), so the whole lecture takes seconds. The page is
static HTML with relative image paths: no server, no network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lecture.media.ffmpeg import FfmpegError, run_ffmpeg
from lecture.plan import PlannedScene
from lecture.review.sparseness import (
    SPARSE_RULE,
    SceneSparseness,
    StillMeasure,
    measure_still,
    percent,
    scene_summary,
    smallest_text_at,
)
from voiceover.atomic import atomic_path, write_text
from voiceover.takes import bookmark_confidence
from voiceover.timeline import Timeline

STILL_WIDTH_PX = 480


class StoryboardError(RuntimeError):
    pass


@dataclass(frozen=True)
class Moment:
    """One still: a bookmark (or a beat's end) and the narration that leads to it."""

    scene: str
    beat: str
    label: str  # the bookmark's name, or "fin del beat"
    scene_s: float  # time of the still within its scene
    lecture_s: float  # the same moment in the joined lecture
    text: str  # the narration spoken up to this moment, since the previous one
    problems: tuple[str, ...]


@dataclass(frozen=True)
class SceneBoard:
    name: str
    title: str
    video: Path
    fps: float
    start_s: float
    duration_s: float
    numbers_read: dict
    moments: tuple[Moment, ...]
    visible_texts: dict[str, list[str]] = field(default_factory=dict)  # beat -> strings shown in it
    text_boxes: tuple[dict, ...] = ()  # the log's text heights at each change (see sparseness)


@dataclass(frozen=True)
class FlaggedStill:
    scene: str
    beat: str
    label: str
    scene_s: float
    still: Path
    problems: tuple[str, ...]


@dataclass(frozen=True)
class WrittenStoryboard:
    page: Path
    summaries: tuple[SceneSparseness, ...]  # per scene, in plan order
    flagged: tuple[FlaggedStill, ...]  # every sparse still, in lecture order


def moments(scene: str, timeline: Timeline, start_s: float, problems: Sequence[str], fps: float) -> tuple[Moment, ...]:
    """A moment per bookmark and per beat end; each carries the text said since the last.
    A moment's time is the start of the last frame drawn before it: what is on screen as
    the bookmark is spoken (the animation aimed at it has just ended)."""

    def last_frame(t: float) -> float:
        return max(round(t * fps) - 1, 0) / fps

    out = []
    for beat in timeline.beats:
        beat_problems = tuple(p for p in problems if p.startswith(f"beat '{beat.name}'"))
        marks = sorted(beat.bookmarks.items(), key=lambda kv: kv[1])
        # segments[i] is the text before bookmark i; the last segment ends the beat.
        for (mark, t), segment in zip(marks, beat.segments):
            at = last_frame(t)
            trust = bookmark_confidence(timeline, mark)  # a one-take recording's alignment
            label = mark if trust is None else f"{mark} (toma: confianza {trust:.2f})"
            out.append(Moment(scene, beat.name, label, at, start_s + at, segment.text, ()))
        end = last_frame(beat.end_s)
        last_text = beat.segments[-1].text if len(beat.segments) > len(marks) else ""
        out.append(Moment(scene, beat.name, "fin del beat", end, start_s + end, last_text, beat_problems))
    return tuple(out)


def _latest_render(work: Path) -> tuple[dict, dict] | None:
    """(render log, timeline json) of the render the build uses now: the newest record
    (the build touches a record whenever it reuses it)."""
    records = sorted(work.glob("*.record.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for record_file in records:
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
            log = json.loads((work / record["log"]).read_text(encoding="utf-8"))
            timeline = json.loads((work / f"{record['key']}.timeline.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError):
            continue
        return log, timeline
    return None


def collect(
    plan: Sequence[PlannedScene], renders: Path, work_root: Path, only: set[str] | None = None
) -> list[SceneBoard]:
    """The boards of the plan's scenes (those in `only`, when given), in plan order; times in
    the lecture count every scene of the plan before them."""
    boards, clock = [], 0.0
    missing = []
    for scene in plan:
        video = renders / "scenes" / f"{scene.name}.mp4"
        found = _latest_render(work_root / scene.name)
        if not video.exists() or found is None:
            if only is None or scene.name in only:
                missing.append(scene.name)
            continue
        log, timeline_json = found
        duration = log["frames"] / log["fps"]
        if only is None or scene.name in only:
            timeline = Timeline.from_json(timeline_json)
            boards.append(
                SceneBoard(
                    scene.name,
                    timeline.title,
                    video,
                    log["fps"],
                    clock,
                    duration,
                    log.get("numbers_read", {}),
                    moments(scene.name, timeline, clock, log.get("layout_problems", []), log["fps"]),
                    {str(b): [str(t) for t in texts] for b, texts in log.get("visible_texts", {}).items()},
                    tuple(log.get("text_boxes", [])),
                )
            )
        clock += duration
    if missing:
        raise StoryboardError(
            f"sin render de: {', '.join(missing)}; ffn-video build --quality <calidad> las renderiza primero"
        )
    return boards


def extract_still(video: Path, at_s: float, fps: float, out: Path) -> Path:
    """The frame of `video` that starts at `at_s`, scaled for the page. Input seeking drops
    the frames before the target, so the target sits a quarter frame before the frame."""
    with atomic_path(out) as tmp:
        target = max(at_s - 0.25 / fps, 0.0)
        args = ["-ss", f"{target:.4f}", "-i", str(video), "-frames:v", "1", "-vf", f"scale={STILL_WIDTH_PX}:-2"]
        try:
            run_ffmpeg([*args, "-f", "image2", "-c:v", "png", str(tmp)], f"extracting a still of {video}")
        except FfmpegError as err:
            raise StoryboardError(f"{video}: no se pudo extraer el fotograma en {at_s:.2f} s: {err}") from None
        if tmp.stat().st_size == 0:
            raise StoryboardError(f"{video}: no se pudo extraer el fotograma en {at_s:.2f} s (imagen vacía)")
    return out


def _clock(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:05.2f}"


def _number_text(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"


def _visible_texts_html(board: SceneBoard) -> str:
    """Every string the scene showed, beat by beat, in the order each first appeared."""
    count = sum(len(texts) for texts in board.visible_texts.values())
    if not count:
        return "<details><summary>0 textos en pantalla (el registro del render no los trae)</summary></details>"
    beats = []
    for beat, texts in board.visible_texts.items():
        items = "".join(
            ("<li class='tex'>" if _looks_like_tex(t) else "<li>") + html.escape(t) + "</li>" for t in texts
        )
        beats.append(f"<tr><td>{html.escape(beat)}</td><td><ul>{items}</ul></td></tr>")
    return (
        f"<details class='vt' open><summary>{count} textos en pantalla, por beat</summary>"
        f"<table>{''.join(beats)}</table></details>"
    )


def _looks_like_tex(text: str) -> bool:
    """A formula's TeX (shown in monospace, as typed) rather than a text as read."""
    return "\\" in text or "_" in text or "^" in text


def _measure_html(measure: StillMeasure) -> str:
    text = "—" if measure.smallest_text_px is None else f"{measure.smallest_text_px:.0f} px"
    figures = (
        f"dibujado {percent(measure.drawn_share, 1)} · dibujo principal {percent(measure.carrying_height_share)} "
        "de la altura · "
        f"texto mínimo {text}"
    )
    if not measure.sparse:
        return f"<div class='t'>{html.escape(figures)}</div>"
    reasons = "; ".join(measure.problems)
    return f"<div class='p sparse'>escaso: {html.escape(reasons)}</div><div class='t'>{html.escape(figures)}</div>"


def _sparseness_table_html(summaries: Sequence[SceneSparseness]) -> str:
    rows = "".join(
        f"<tr><td><a href='#{html.escape(s.scene)}'>{html.escape(s.scene)}</a></td><td>{s.stills}</td>"
        f"<td>{percent(s.under_3_share)}</td><td{' class=p' if s.flagged else ''}>{s.flagged}</td></tr>"
        for s in summaries
    )
    return (
        "<details class='vt'><summary>fotogramas escasos por escena</summary><table>"
        "<tr><td>escena</td><td>fotogramas</td><td>con menos de 3 % dibujado</td><td>escasos</td></tr>"
        f"{rows}</table></details>"
    )


def _cuts_html(cuts: Sequence[FlaggedStill]) -> str:
    """The cuts between scenes from a full frame to a sparse one, each with its still."""
    if not cuts:
        return "<p class='ok'>ningún corte entre escenas pasa de un cuadro lleno a uno vacío</p>"
    items = "".join(
        f"<div class='m flag'><img src='{html.escape(c.still.name)}' alt=''>"
        f"<div>{html.escape(c.scene)}: {CUT_LABEL}</div>"
        + "".join(f"<div class='p'>{html.escape(p)}</div>" for p in c.problems)
        + "</div>"
        for c in cuts
    )
    return f"<h2>Cortes entre escenas</h2><div class='grid'>{items}</div>"


def render_html(
    boards: Sequence[SceneBoard],
    quality: str,
    stills: dict[tuple[str, int], str],
    measures: dict[tuple[str, int], StillMeasure] | None = None,
    cuts: Sequence[FlaggedStill] = (),
) -> str:
    measures = measures or {}
    total_problems = sum(len(m.problems) for b in boards for m in b.moments)
    sparse = sum(1 for m in measures.values() if m.sparse) + len(cuts)
    summaries = [
        scene_summary(b.name, [measures[(b.name, i)] for i in range(len(b.moments)) if (b.name, i) in measures])
        for b in boards
    ]
    parts = [
        "<!DOCTYPE html><html lang='es'><head><meta charset='utf-8'>",
        f"<title>Guion gráfico — {html.escape(quality)}</title>",
        "<style>body{font-family:DejaVu Sans,sans-serif;background:#0f1420;color:#eceff4;margin:2em}"
        "h2{border-top:1px solid #3a4150;padding-top:1em}.grid{display:flex;flex-wrap:wrap;gap:14px}"
        ".m{width:480px}.m img{width:480px;display:block}.t{color:#8a93a6;font-size:13px}"
        ".p{color:#ff6b6b;font-weight:bold}.ok{color:#7cf29c}details{margin:.5em 0}"
        ".m.flag img{outline:3px solid #ff6b6b}"
        "td{padding:0 .6em;font-size:13px;vertical-align:top}.vt li{margin:.15em 0}"
        ".vt .tex{font-family:DejaVu Sans Mono,monospace;color:#b8c4d9}</style></head><body>",
        f"<h1>Guion gráfico de la clase ({html.escape(quality)})</h1>",
        f"<p>{len(boards)} escenas, {sum(len(b.moments) for b in boards)} fotogramas, "
        f"{_clock(sum(b.duration_s for b in boards))} de video. "
        + (
            f"<span class='p'>{total_problems} problemas de composición</span>"
            if total_problems
            else "<span class='ok'>sin problemas de composición</span>"
        )
        + ". "
        + (
            f"<span class='p'>{sparse} fotogramas escasos</span>"
            if sparse
            else "<span class='ok'>ningún fotograma escaso</span>"
        )
        + f" <span class='t'>(escaso: {html.escape(SPARSE_RULE)})</span></p>",
        _sparseness_table_html(summaries) if measures else "",
        _cuts_html(cuts),
    ]
    for board in boards:
        parts.append(
            f"<h2 id='{html.escape(board.name)}'>{html.escape(board.title)} "
            f"<span class='t'>({html.escape(board.name)}, empieza en {_clock(board.start_s)}, "
            f"dura {_clock(board.duration_s)})</span></h2>"
        )
        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td>{html.escape(_number_text(v))}</td></tr>"
            for k, v in board.numbers_read.items()
        )
        parts.append(
            f"<details><summary>{len(board.numbers_read)} números leídos de ffn_core</summary>"
            f"<table>{rows}</table></details>"
        )
        parts.append(_visible_texts_html(board))
        parts.append("<div class='grid'>")
        for i, moment in enumerate(board.moments):
            problems = "".join(f"<div class='p'>{html.escape(p)}</div>" for p in moment.problems)
            measure = measures.get((board.name, i))
            flag = " flag" if measure is not None and measure.sparse else ""
            parts.append(
                f"<div class='m{flag}'><img src='{html.escape(stills[(board.name, i)])}' loading='lazy' "
                f"alt='{html.escape(board.name)} {moment.scene_s:.2f} s'>"
                f"<div class='t'>{html.escape(moment.beat)} · {html.escape(moment.label)} · "
                f"{_clock(moment.scene_s)} en la escena · {_clock(moment.lecture_s)} en la clase</div>"
                + (_measure_html(measure) if measure is not None else "")
                + f"<div>{html.escape(moment.text)}</div>{problems}</div>"
            )
        parts.append("</div>")
    parts.append("</body></html>\n")
    return "".join(parts)


CUT_LABEL = "primer fotograma"


def scene_cut(before: SceneBoard, after: SceneBoard, last: StillMeasure, folder: Path) -> FlaggedStill | None:
    """The cut from `before`'s last frame to `after`'s first, flagged when it goes from a full
    frame to a sparse one (a scene that follows another opens on its drawing, not on black).
    Only scenes that follow each other in the lecture are compared."""
    if abs(before.start_s + before.duration_s - after.start_s) > 0.5 / after.fps or last.sparse:
        return None
    still = folder / f"{after.name}-inicio.png"
    extract_still(after.video, 0.0, after.fps, still)
    first = measure_still(still, smallest_text_at(after.text_boxes, 0.0, after.fps))
    if not first.sparse:
        still.unlink(missing_ok=True)
        return None
    beat = after.moments[0].beat if after.moments else ""
    problems = (f"corte desde el último cuadro de «{before.name}», lleno, a este casi vacío", *first.problems)
    return FlaggedStill(after.name, beat, CUT_LABEL, 0.0, still, problems)


def write_storyboard(
    plan: Sequence[PlannedScene], renders: Path, work_root: Path, quality: str, only: set[str] | None = None
) -> WrittenStoryboard:
    """Write `renders/<quality>/storyboard/index.html` and its stills, each measured;
    returns the page, the per-scene figures and the sparse stills."""
    boards = collect(plan, renders, work_root, only)
    folder = renders / "storyboard"
    folder.mkdir(parents=True, exist_ok=True)
    stills: dict[tuple[str, int], str] = {}
    measures: dict[tuple[str, int], StillMeasure] = {}
    flagged = []
    wanted = set()
    for board in boards:
        for i, moment in enumerate(board.moments):
            name = f"{board.name}-{i:03d}.png"
            extract_still(board.video, moment.scene_s, board.fps, folder / name)
            measure = measure_still(folder / name, smallest_text_at(board.text_boxes, moment.scene_s, board.fps))
            stills[(board.name, i)] = name
            measures[(board.name, i)] = measure
            if measure.sparse:
                flagged.append(
                    FlaggedStill(board.name, moment.beat, moment.label, moment.scene_s, folder / name, measure.problems)
                )
            wanted.add(name)
    cuts = []
    for before, after in zip(boards, boards[1:]):
        cut = scene_cut(before, after, measures[(before.name, len(before.moments) - 1)], folder)
        if cut is not None:
            cuts.append(cut)
            wanted.add(cut.still.name)
    flagged += cuts
    shown = {b.name for b in boards}
    for old in folder.glob("*.png"):  # stills of moments that no longer exist
        if old.name not in wanted and old.name.rsplit("-", 1)[0] in shown:
            old.unlink(missing_ok=True)
    page = folder / "index.html"
    write_text(page, render_html(boards, quality, stills, measures, cuts))
    summaries = tuple(scene_summary(b.name, [measures[(b.name, i)] for i in range(len(b.moments))]) for b in boards)
    return WrittenStoryboard(page, summaries, tuple(flagged))
