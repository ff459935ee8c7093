"""Files out of one pinned npm package, each checked: the one place `npm pack` runs.

`packed_files("name@version", {path: sha256})` runs `npm pack` in a temporary folder (the
registry's tarball only: nothing is installed and no package script runs), refuses a
tarball whose SHA-512 is not the registry's integrity when the caller pins one, and returns
the bytes of every file asked for (its path inside the package), refusing one whose SHA-256
is not its pin. The Kokoro voices (`voiceover.engines.kokoro_assets`) and the deck's player
(`lecture.classroom.revealjs`) come this way; each caller names its own repair.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path


class NpmPackError(RuntimeError):
    """npm is missing or failed, or the package does not hold a pinned file as pinned."""


def packed_files(package: str, wanted: Mapping[str, str], tarball_sha512: str | None = None) -> dict[str, bytes]:
    """The files `wanted` (path in the package -> SHA-256) of `package` ("name@version")."""
    npm = shutil.which("npm")
    if npm is None:
        raise NpmPackError(f"se necesita npm una vez para traer {package}; instala Node.js/npm")
    with tempfile.TemporaryDirectory(prefix="npm-pack.") as tmp:
        proc = subprocess.run([npm, "pack", package, "--silent"], cwd=tmp, capture_output=True, text=True)
        tarballs = sorted(Path(tmp).glob("*.tgz"))
        if proc.returncode != 0 or not tarballs:
            raise NpmPackError(f"`npm pack {package}` falló ({proc.returncode}): {proc.stderr.strip()[-400:]}")
        if tarball_sha512 is not None:
            integrity = base64.b64encode(hashlib.sha512(tarballs[0].read_bytes()).digest()).decode()
            if integrity != tarball_sha512:
                raise NpmPackError(
                    f"el paquete {package} tiene sha512 {integrity[:24]}…, "
                    f"se esperaba {tarball_sha512[:24]}…: rechazado"
                )
        files: dict[str, bytes] = {}
        with tarfile.open(tarballs[0], "r:gz") as tar:
            for name, want in wanted.items():
                try:
                    member = tar.extractfile(f"package/{name}")
                except KeyError:
                    member = None
                if member is None:
                    raise NpmPackError(f"{package} no trae {name}")
                data = member.read()
                got = hashlib.sha256(data).hexdigest()
                if got != want:
                    raise NpmPackError(f"{name} de {package} tiene sha256 {got}, se esperaba {want}: rechazado")
                files[name] = data
    return files
