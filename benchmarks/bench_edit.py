"""What an edit costs: the edit loop at preview, measured in one run on a temporary copy.

    .venv/bin/python benchmarks/bench_edit.py [--source REPO] [--dest DIR] [--voice kokoro] [--keep]

Copies the repository (`--source`, by default this one: sources, narration scripts, the
narration and `ffn_core` caches; never the build cache or the renders) to `--dest` (default a
new folder under /tmp/h7/), points `FFN_CACHE_DIR` and `FFN_RENDERS_DIR` there (and lets Python
keep the copy's compiled modules, as it does by default), builds the
whole lecture at preview once (narrated with espeak-ng unless `--voice kokoro`: Kokoro would
make that first build minutes longer and the figures below do not depend on the voice), then
times `ffn-video build` after each of these edits to the longest scene's script:

- nothing changed (target under 1 s);
- a sentence added to its last beat (target at most 8 s);
- that edit undone, the renders kept (target at most 3 s);
- a sentence added to its first beat (target at most the scene's full render plus 3 s);
- a number's format changed where the words said stay the same (every duration kept:
  target at most 3 s).

For each it prints the wall time of the whole command, what was rendered (which frames were
drawn, which taken as they were), how much narration was encoded, and the ratio of the wall
time to the scene's own full render in the first build. The figures come from the files the
build left (records, encoded narration), so the same script measures an older checkout
(`--source /tmp/h7/old`) for a before/after comparison. Results also go to
`<dest>/bench_edit.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
COPIED_CACHES = ("voiceover", "ffn_core")
SKIPPED = {".git", ".venv", ".cache", "renders", "__pycache__", ".pytest_cache"}
SENTENCE = " Lo vemos enseguida."
QUALITY = "preview"
RATE_HZ = 48_000


def copy_repo(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, ignore=lambda d, names: [n for n in names if n in SKIPPED])
    for name in COPIED_CACHES:
        if (source / ".cache" / name).is_dir():
            shutil.copytree(source / ".cache" / name, dest / ".cache" / name)
    return dest


class Lecture:
    """The copy, its environment, and what its builds leave."""

    def __init__(self, repo: Path, voice: str):
        self.repo = repo
        self.env = dict(
            os.environ,
            FFN_CACHE_DIR=str(repo / ".cache"),
            FFN_RENDERS_DIR=str(repo / "renders"),
            FFN_VOICE_ENGINE="kokoro" if voice == "kokoro" else "espeak",
        )
        self.env.pop("FFN_PLAN", None)
        # Python keeps the copy's compiled modules, as it does by default on a lecturer's
        # machine; an environment that turns that off (this sandbox's does) would make every
        # edit compile the repository's sources again, in the build and in its manim process.
        self.bytecode_was_off = self.env.pop("PYTHONDONTWRITEBYTECODE", None) is not None
        self.work = repo / ".cache" / "build" / QUALITY

    def run(self, *args: str) -> float:
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "lecture.cli", *args], cwd=self.repo, env=self.env, capture_output=True, text=True
        )
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"ffn-video {' '.join(args)} falló ({proc.returncode}):\n{proc.stderr[-3000:]}")
        return seconds

    def build(self) -> float:
        return self.run("build", "--quality", QUALITY)

    def python(self, code: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=self.repo, env=self.env, capture_output=True, text=True, check=True
        )
        return proc.stdout.strip()

    def plan(self) -> list[dict]:
        return tomllib.loads((self.repo / "lecture" / "plan.toml").read_text(encoding="utf-8"))["scene"]

    def script(self, name: str) -> Path:
        entry = next(e for e in self.plan() if e["name"] == name)
        if "script_path" in entry:
            return self.repo / entry["script_path"]
        return self.repo / "voiceover" / "script" / "es" / f"{entry.get('script', name)}.toml"

    def scene_frames(self) -> dict[str, int]:
        manifest = json.loads((self.repo / "renders" / QUALITY / "scenes.json").read_text(encoding="utf-8"))
        return {s["name"]: int(s["frames"]) for s in manifest["scenes"]}

    def snapshot(self) -> dict[Path, int]:
        return {p: p.stat().st_mtime_ns for p in self.work.rglob("*") if p.is_file()}


def cpu_reference_s() -> float:
    """CPU seconds of a fixed pure-Python loop in a fresh interpreter: how fast this machine
    runs Python today (the figures above scale with it)."""
    code = "import time\nt = time.process_time()\ns = 0\nfor i in range(10**7): s += i\nprint(time.process_time() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out)


def newer(before: dict[Path, int], after: dict[Path, int]) -> list[Path]:
    return sorted(p for p, t in after.items() if before.get(p) != t)


def adts_seconds(path: Path) -> float:
    """Audio in an ADTS stretch file, without its priming packet."""
    data, pos, packets = path.read_bytes(), 0, 0
    while pos + 7 <= len(data):
        pos += ((data[pos + 3] & 0x03) << 11) | (data[pos + 4] << 3) | (data[pos + 5] >> 5)
        packets += 1
    return max(packets - 1, 0) * 1024 / RATE_HZ


def probe_seconds(path: Path) -> float:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        return float(out)
    except ValueError:
        return 0.0


def what_changed(
    lecture: Lecture, changed: list[Path], before: dict[Path, int]
) -> tuple[list[str], float, list[str], float]:
    """(what was rendered, seconds of narration encoded, which audio files, render seconds)
    from the files a build wrote (a render is a new record: a reused one is only touched)."""
    rendered, render_s = [], 0.0
    for path in changed:
        if path.name.endswith(".record.json") and path.parent.parent == lecture.work and path not in before:
            record = json.loads(path.read_text(encoding="utf-8"))
            render_s += float(record.get("render_s", 0.0))
            frames, chunks = record.get("frames", 0), record.get("extra", {}).get("chunks", [])
            drawn = [c for c in chunks if not c[2]]
            if drawn and len(drawn) < len(chunks):
                start = min(c[0] for c in drawn)
                rendered.append(f"{path.parent.name}: fotogramas {start}-{frames} (de {frames}; {start} tomados)")
            else:
                rendered.append(f"{path.parent.name}: entera, {frames} fotogramas")
    audio = lecture.work / "audio"
    stretches = audio / "stretches"
    encoded, files = 0.0, []
    if stretches.is_dir():  # narration in stretches: only those are encodings, the m4a are copies
        for path in changed:
            if path.parent == stretches and path.suffix == ".aac":
                encoded += adts_seconds(path)
                files.append(path.name)
    else:
        for path in changed:
            if path.parent == audio and path.suffix == ".m4a":
                encoded += probe_seconds(path)
                files.append(path.name)
    return rendered, encoded, files, render_s


def beat_texts(path: Path) -> list[str]:
    return [b["text"].rstrip() for b in tomllib.loads(path.read_text(encoding="utf-8"))["beat"]]


def add_sentence(path: Path, beat: int) -> None:
    raw = path.read_text(encoding="utf-8")
    text = beat_texts(path)[beat]
    if raw.count(text) != 1:
        sys.exit(f"{path}: el texto del beat {beat + 1} no se encuentra una sola vez")
    path.write_text(raw.replace(text, text + SENTENCE), encoding="utf-8")


FIND_FORMAT = """
import re, sys, tomllib
from pathlib import Path
from ffn_core.registry import logged_value
from voiceover.spoken import say
for name in sys.argv[1:]:
    raw = Path(name).read_text(encoding="utf-8")
    for m in re.finditer(r"\\{([a-z0-9_.]+):entero\\}", raw):
        value = logged_value(m.group(1))
        if say(value, "entero").spoken == say(value, "decimal").spoken:
            print(name, m.group(0)); raise SystemExit
"""


def change_number_format(lecture: Lecture, first: Path) -> str:
    """A `{clave:entero}` turned `{clave:decimal}` where both say the same words."""
    scripts = [str(first)] + [str(lecture.script(e["name"])) for e in lecture.plan()]
    found = lecture.python(FIND_FORMAT.replace("sys.argv[1:]", repr(scripts)))
    if not found:
        sys.exit("ningún número cambia de formato sin cambiar lo que se dice")
    name, field = found.rsplit(" ", 1)
    path = Path(name)
    raw = path.read_text(encoding="utf-8")
    path.write_text(raw.replace(field, field.replace(":entero}", ":decimal}"), 1), encoding="utf-8")
    return f"{field} -> :decimal en {path.name}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=REPO_ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--dest", type=Path, help="where the copy goes (default: a new folder under /tmp/h7/)")
    parser.add_argument("--voice", choices=("espeak", "kokoro"), default="espeak")
    parser.add_argument("--keep", action="store_true", help="keep the copy")
    parser.add_argument(
        "--phase",
        choices=("all", "prepare", "measure"),
        default="all",
        help="prepare: copy and first build only; measure: the edits, on a --dest prepared before",
    )
    args = parser.parse_args()
    Path("/tmp/h7").mkdir(parents=True, exist_ok=True)
    dest = args.dest or Path(tempfile.mkdtemp(prefix="bench-edit-", dir="/tmp/h7"))
    try:
        voice = "espeak-ng" if args.voice == "espeak" else "Kokoro"
        prepared = dest / "prepared.json"
        if args.phase == "measure":
            lecture = Lecture(dest / "repo", args.voice)
            full_s = json.loads(prepared.read_text(encoding="utf-8"))["full_build_s"]
        else:
            if not (dest / "repo").is_dir():
                copy_repo(args.source.resolve(), dest / "repo")
            lecture = Lecture(dest / "repo", args.voice)
            where = lecture.python("import lecture; print(lecture.__file__)")
            if not where.startswith(str(lecture.repo)):
                sys.exit(f"la copia importa lecture de {where}, no de sí misma")
            start = time.monotonic()
            lecture.build()
            full_s = time.monotonic() - start
            if prepared.exists():  # a first build resumed: its time is not one build's
                full_s += json.loads(prepared.read_text(encoding="utf-8"))["full_build_s"]
            prepared.write_text(json.dumps({"full_build_s": full_s}), encoding="utf-8")
            if args.phase == "prepare":
                print(f"copia compilada en {dest} ({full_s:.1f} s)")
                return 0
        frames = lecture.scene_frames()
        scene = max(frames, key=lambda n: frames[n])
        record = max(
            (lecture.work / scene).glob("*.record.json"), key=lambda p: p.stat().st_mtime_ns
        )  # the scene's render in the full build
        scene_render_s = json.loads(record.read_text(encoding="utf-8"))["render_s"]
        script = lecture.script(scene)
        original = script.read_text(encoding="utf-8")
        rows = []

        def measure(label: str, target_s: float) -> None:
            before = lecture.snapshot()
            wall = lecture.build()
            rendered, encoded_s, files, render_s = what_changed(lecture, newer(before, lecture.snapshot()), before)
            rows.append(
                {
                    "edit": label,
                    "wall_s": round(wall, 2),
                    "target_s": round(target_s, 2),
                    "ok": wall <= target_s,
                    "rendered": rendered,
                    "encoded_audio_s": round(encoded_s, 1),
                    "encoded_files": len(files),
                    "render_s": round(render_s, 2),
                }
            )

        reference_s = [cpu_reference_s()]
        measure("sin cambios", 1.0)
        add_sentence(script, -1)
        measure("frase añadida al último beat", 8.0)
        script.write_text(original, encoding="utf-8")
        measure("deshacer esa edición", 3.0)
        add_sentence(script, 0)
        measure("frase añadida al primer beat", 0.0)
        script.write_text(original, encoding="utf-8")
        lecture.build()  # back to the original, not measured
        what = change_number_format(lecture, script)
        measure(f"formato de un número ({what})", 3.0)
        reference_s.append(cpu_reference_s())
        # The scene's full render as it ran just now (the first build's ran beside all the
        # others, on a machine busier or not): the first-beat edit renders it whole.
        first_beat = next(r for r in rows if "primer beat" in r["edit"])
        if first_beat["render_s"]:
            scene_render_s = first_beat["render_s"]
        first_beat["target_s"] = round(scene_render_s + 3.0, 2)
        first_beat["ok"] = first_beat["wall_s"] <= first_beat["target_s"]
        for row in rows:
            row["ratio_to_scene_render"] = round(row["wall_s"] / scene_render_s, 2) if scene_render_s else None

        lecture_s = sum(frames.values()) / 15
        print(f"clase: {len(frames)} escenas, {lecture_s / 60:.1f} min (preview, 854x480, 15 fps); voz: {voice}")
        load = os.getloadavg()[0]
        print(f"copia de {args.source} en {dest}; carga al acabar: {load:.1f} en {os.cpu_count()} núcleos")
        print(f"compilación completa: {full_s:.1f} s")
        if lecture.bytecode_was_off:
            print("módulos compilados: guardados en la copia (sin PYTHONDONTWRITEBYTECODE, como Python por omisión)")
        print(
            f"referencia de CPU (un bucle fijo de Python; compara máquinas y días): "
            f"{reference_s[0]:.2f} s antes de las ediciones, {reference_s[1]:.2f} s después"
        )
        print(
            f"escena más larga: «{scene}», {frames[scene] / 15:.1f} s; su render completo: {scene_render_s:.1f} s "
            "(el de la edición del primer beat)"
        )
        print()
        for row in rows:
            verdict = "cumple" if row["ok"] else "NO cumple"
            print(
                f"{row['edit']}: {row['wall_s']:.1f} s (objetivo <= {row['target_s']:.1f} s: {verdict}); "
                f"{row['ratio_to_scene_render']:.2f}x el render de la escena"
            )
            print(f"    renderizado: {'; '.join(row['rendered']) or 'nada'}")
            audio = f"{row['encoded_audio_s']:.1f} s de audio ({row['encoded_files']} archivos)"
            print(f"    narración codificada: {audio}")
        (dest / "bench_edit.json").write_text(
            json.dumps(
                {
                    "source": str(args.source),
                    "voice": voice,
                    "full_build_s": full_s,
                    "scene": scene,
                    "scene_s": frames[scene] / 15,
                    "scene_render_s": scene_render_s,
                    "cpu_reference_s": reference_s,
                    "rows": rows,
                },
                ensure_ascii=False,
                indent=2,
            ),
            encoding="utf-8",
        )
        return 0
    finally:
        if not args.keep and args.dest is None:
            shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
