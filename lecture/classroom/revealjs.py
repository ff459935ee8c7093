"""reveal.js, the deck's player: the npm package pinned to one version, its files checked.

Nothing of it is in the repository. `python -m lecture.classroom.revealjs install` (run by
`setup.sh`) runs `npm pack reveal.js@VERSION` (`voiceover.npm_pack`), refuses a tarball whose
SHA-512 is not the registry's integrity pinned here, and keeps the few files a deck needs
(`FILES`, each checked against its own SHA-256) in the user's cache folder,
`${XDG_CACHE_HOME:-~/.cache}/ffn-video/reveal.js-VERSION/`, the way the Kokoro voices are
kept (`voiceover.engines.kokoro_assets`). `copy_into` puts them beside a deck, so the deck's
folder opens from `file://` with no network.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from voiceover.atomic import atomic_path, sha256_file
from voiceover.npm_pack import NpmPackError, packed_files

VERSION = "6.0.2"
PACKAGE = f"reveal.js@{VERSION}"
# `npm view reveal.js@6.0.2 dist.integrity`: the registry's SHA-512 of the tarball.
TARBALL_SHA512 = "JYIg5D9aoxoaLeb84O+OvAwsKWdIavVgEDScxtYEXFCT6t6TQrhNtSgogcjdCpdLsWglhJn3zyE3fUOwiH5KEg=="
# What a deck loads (path in the package -> SHA-256): the classic (non-module) scripts,
# since Chromium refuses ES modules from file://; the theme embeds its fonts.
FILES = {
    "dist/reveal.js": "aa1bbbf2617b23a623b23612cb3c5bdb63de512e652bf20fcfa832b045d37844",
    "dist/reveal.css": "615ee850cbbb98a0f688b60ed37b21819a3f54c9f3e6f20e33e63693ab74a0c0",
    "dist/reset.css": "39413c3490fdcf826427c26ff4c1ee59ea961a0aa8507c18454e0c6dc96c12d8",
    "dist/theme/black.css": "c29c9689e8f3b277aa66edc01ed2ef97981a6768b05ad750582eac068d9705c3",
    "dist/plugin/notes.js": "447c42f365876e41853de81453d0c53c580c5b2099132e8f61200de4a0ba2af3",
    "LICENSE": "b2883e4b610bfa1b4d8fff84c4d4b825cc7d553cbd9fec4777c04068a2859dc0",
}
REPAIR_COMMAND = ".venv/bin/python -m lecture.classroom.revealjs install (o ./setup.sh)"


class RevealAssetError(RuntimeError):
    """A reveal.js file that is missing, corrupted or cannot be fetched."""


def revealjs_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the checked files are kept (beside Kokoro's, in the user's cache folder)."""
    env = os.environ if env is None else env
    cache = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "ffn-video" / f"reveal.js-{VERSION}"


def check(root: Path | None = None) -> Path:
    """The folder of the pinned files, each checked against its hash."""
    root = root or revealjs_dir()
    for name, want in FILES.items():
        path = root / name
        if not path.is_file():
            raise RevealAssetError(f"falta {path} (reveal.js {VERSION}); se repara con: {REPAIR_COMMAND}")
        got = sha256_file(path)
        if got != want:
            raise RevealAssetError(
                f"{path} está dañado (sha256 {got[:16]}…, se esperaba {want[:16]}…); se repara con: {REPAIR_COMMAND}"
            )
    return root


def fetch(root: Path) -> None:
    """`npm pack` the pinned package (`voiceover.npm_pack`); keep `FILES`, every hash checked."""
    try:
        files = packed_files(PACKAGE, FILES, TARBALL_SHA512)
    except NpmPackError as err:
        raise RevealAssetError(f"{err}; se repara con: {REPAIR_COMMAND}") from None
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(target) as out:
            out.write_bytes(data)


def install(root: Path | None = None, log: Callable[[str], object] = print) -> Path:
    """The pinned files in `root`, checked; fetched only when one is missing or damaged."""
    root = root or revealjs_dir()
    try:
        return check(root)
    except RevealAssetError:
        log(f"reveal.js: trayendo {PACKAGE} (npm pack) a {root}")
        fetch(root)
        return check(root)


def copy_into(folder: Path, root: Path | None = None) -> Path:
    """The checked files copied to `folder` (the deck's `reveal.js/`), keeping their paths."""
    source = check(root)
    for name in FILES:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or sha256_file(target) != FILES[name]:
            with atomic_path(target) as out:
                shutil.copyfile(source / name, out)
    return folder


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lecture.classroom.revealjs", description=f"Instala y comprueba {PACKAGE} para las diapositivas."
    )
    parser.add_argument("command", choices=("install", "check", "path"))
    args = parser.parse_args(argv)
    try:
        if args.command == "path":
            print(revealjs_dir())
        elif args.command == "check":
            print(f"reveal.js: {PACKAGE} en orden en {check()}")
        else:
            print(f"reveal.js: {PACKAGE} listo en {install()}")
    except RevealAssetError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
