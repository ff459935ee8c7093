"""The reveal.js deck: `renders/<quality>/slides/index.html`, one slide per beat.

Chapters (scenes) are reveal.js's vertical stacks, their beats the slides in them, walked
in a line (`navigationMode: "linear"`): → or space goes to the next beat, ← to the previous
one, `Esc` shows every chapter side by side. A slide plays its beat's clip once, muted, and
holds on its last frame (an ended video shows it); coming back to a slide plays its clip
again from the start (reveal.js restarts an ended or paused autoplay video). The narration
of the beat is the slide's speaker notes (`S` opens reveal.js's notes view, whose labels
are put in Spanish here). `V` or the button in the corner plays the synthetic narration
(the clip's own sound) instead of the lecturer's voice.

Everything is relative to the folder (clips, posters, reveal.js's files), so the folder
opens from `file://` with no network and can be copied anywhere.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from lecture.classroom.lesson import BeatSpan, Chapter, seconds_es

# The notes view's English labels (reveal.js 6.0.2's notes plugin) and what a lecturer reads.
NOTES_VIEW_ES = {
    "Upcoming": "A continuación",
    "Time": "Hora",
    "Click to Reset": "Clic para reiniciar",
    "Notes": "Notas",
    "Loading speaker view...": "Cargando la vista del orador…",
    "Pacing – Time to finish current slide": "Ritmo: tiempo para terminar esta diapositiva",
    "Default": "Normal",
    "Wide": "Ancha",
    "Tall": "Alta",
    "Notes only": "Solo notas",
}

STYLE = """
html, body, .reveal-viewport { background: #000; }
.reveal .slides > section, .reveal .slides > section > section { height: 100%; padding: 0; }
.reveal .slides section video.beat {
  display: block; width: 100%; height: 100%; max-width: none; max-height: none; margin: 0; object-fit: contain;
}
.reveal .where {
  position: absolute; left: 0.6em; bottom: 0.4em; margin: 0; font-size: 14px; color: #cfd6e4;
  opacity: 0.55; font-family: "DejaVu Sans", sans-serif; text-align: left;
}
#voz {
  position: fixed; right: 12px; top: 10px; z-index: 40; font: 13px "DejaVu Sans", sans-serif;
  color: #eceff4; background: rgba(20, 26, 38, 0.75); border: 1px solid #5a6275; border-radius: 4px;
  padding: 4px 8px; cursor: pointer; opacity: 0.7;
}
#voz[aria-pressed="true"] { border-color: #7cf29c; color: #7cf29c; opacity: 1; }
"""

SCRIPT = """
(function () {
  const receiver = new URLSearchParams(window.location.search).has("receiver");
  const button = document.getElementById("voz");
  let narrated = false;
  function setVoice(on) {
    narrated = on && !receiver;  // the notes view's previews stay silent
    document.querySelectorAll("video.beat").forEach(function (v) { v.muted = !narrated; });
    button.setAttribute("aria-pressed", narrated ? "true" : "false");
    button.textContent = narrated ? "Voz: narración sintética (V)" : "Voz: en vivo (V)";
  }
  if (receiver) { button.hidden = true; }
  button.addEventListener("click", function () { setVoice(!narrated); button.blur(); });

  // reveal.js's notes view opens as a blank window the plugin writes into: its labels are
  // put in Spanish once written (same origin, even from file://).
  const labels = %(labels)s;
  const openWindow = window.open.bind(window);
  window.open = function (url, name, features) {
    const win = openWindow(url, name, features);
    if (win && name === "reveal.js - Notes") {
      const translate = function (doc) {
        doc.title = "Notas del orador";
        const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.nodeValue.trim();
          const layout = text.startsWith("Layout: ") ? text.slice(8) : null;
          if (labels[text]) { node.nodeValue = node.nodeValue.replace(text, labels[text]); }
          if (layout !== null) { node.nodeValue = "Diseño: " + (labels[layout] || layout); }
        }
        doc.querySelectorAll("option").forEach(function (o) {
          if (labels[o.textContent]) { o.textContent = labels[o.textContent]; }
        });
      };
      // The plugin writes the page right after this returns, then its script fills it in.
      setTimeout(function () {
        try {
          const doc = win.document;
          translate(doc);
          new win.MutationObserver(function () { translate(doc); })
            .observe(doc.body, { subtree: true, childList: true, characterData: true });
        } catch (e) { /* the window was closed meanwhile */ }
      }, 0);
    }
    return win;
  };

  Reveal.initialize({
    width: %(width)d, height: %(height)d, margin: 0, minScale: 0.05, maxScale: 8,
    center: false, hash: true, controls: true, controlsTutorial: false, progress: true,
    slideNumber: "c/t", navigationMode: "linear", transition: "none", backgroundTransition: "none",
    viewDistance: 3, autoPlayMedia: null, overview: true, plugins: [RevealNotes]
  }).then(function () { setVoice(false); });
  Reveal.addKeyBinding({ keyCode: 86, key: "V", description: "Voz: en vivo o narración sintética" },
    function () { setVoice(!narrated); });
  Reveal.on("slidechanged", function () { setVoice(narrated); });
})();
"""


def slide_html(chapter: Chapter, beat: BeatSpan, clip: str, poster: str, sources: Mapping[str, str]) -> str:
    """One beat's slide: its clip (lazily loaded by reveal.js), where it is, its notes."""
    where = f"{chapter.title} · {beat.number}/{len(chapter.beats)}"
    cited = [sources.get(key, key) for key in beat.sources]
    notes = [
        f"<p><strong>{html.escape(chapter.title)}</strong> · beat {beat.number} de {len(chapter.beats)} "
        f"(«{html.escape(beat.name)}», {seconds_es(beat.frames / beat.fps)} s)</p>",
        f"<p>{html.escape(beat.text) or '(sin narración)'}</p>",
    ]
    if cited:
        notes.append(f"<p><em>Fuentes: {html.escape('; '.join(cited))}</em></p>")
    return (
        f'<section data-beat="{html.escape(beat.slug)}" data-chapter="{html.escape(chapter.name)}">'
        f'<video class="beat" data-autoplay muted playsinline preload="auto" '
        f'data-src="{html.escape(clip)}" poster="{html.escape(poster)}"></video>'
        f'<p class="where">{html.escape(where)}</p>'
        f'<aside class="notes">{"".join(notes)}</aside></section>'
    )


def render_deck(
    chapters: Sequence[Chapter],
    clips: Mapping[str, str],
    posters: Mapping[str, str],
    quality: str,
    sources: Mapping[str, str],
) -> str:
    """The deck's page; `clips` and `posters` map beat slugs to paths relative to it, and
    `sources` reference keys to their short labels."""
    width, height = (chapters[0].width, chapters[0].height) if chapters else (1920, 1080)
    stacks = []
    for chapter in chapters:
        slides = "".join(
            slide_html(chapter, beat, clips[beat.slug], posters[beat.slug], sources) for beat in chapter.beats
        )
        stacks.append(f'<section data-chapter="{html.escape(chapter.name)}">{slides}</section>')
    script = SCRIPT % {"labels": json.dumps(NOTES_VIEW_ES, ensure_ascii=False), "width": width, "height": height}
    return "".join(
        [
            "<!DOCTYPE html>\n<html lang='es'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>Diapositivas de la clase ({html.escape(quality)})</title>",
            "<link rel='stylesheet' href='reveal.js/dist/reset.css'>",
            "<link rel='stylesheet' href='reveal.js/dist/reveal.css'>",
            "<link rel='stylesheet' href='reveal.js/dist/theme/black.css'>",
            f"<style>{STYLE}</style></head><body>",
            "<button id='voz' type='button' aria-pressed='false'>Voz: en vivo (V)</button>",
            f"<div class='reveal'><div class='slides'>{''.join(stacks)}</div></div>",
            "<script src='reveal.js/dist/reveal.js'></script>",
            "<script src='reveal.js/dist/plugin/notes.js'></script>",
            f"<script>{script}</script>",
            "</body></html>\n",
        ]
    )


def relative(paths: Mapping[str, Path], folder: Path) -> dict[str, str]:
    """Paths as the page beside them in `folder` names them (always with `/`)."""
    return {slug: path.relative_to(folder).as_posix() for slug, path in paths.items()}
