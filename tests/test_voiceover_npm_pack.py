"""`voiceover.npm_pack`: files out of a pinned npm package, against a stand-in `npm` on PATH."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import stat
import tarfile
from pathlib import Path

import pytest

from voiceover.npm_pack import NpmPackError, packed_files

FILES = {"dist/a.js": b"console.log('a')\n", "LICENSE": b"MIT\n"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, bytes], status: int = 0) -> bytes:
    """An `npm` whose `pack` drops a tarball of `files` (under `package/`) where it runs."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    tarball = tmp_path / "made.tgz"
    tarball.write_bytes(buf.getvalue())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    copy = f'cp "{tarball}" ./pkg-1.0.0.tgz' if status == 0 else "echo 'npm ERR! 404' >&2"
    npm.write_text(f'#!/bin/sh\n[ "$1" = pack ] || exit 2\n{copy}\nexit {status}\n')
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    return buf.getvalue()


def test_the_pinned_files_come_back_as_packed(tmp_path, monkeypatch):
    tarball = fake_npm(tmp_path, monkeypatch, FILES)
    integrity = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    got = packed_files("pkg@1.0.0", {name: sha256(data) for name, data in FILES.items()}, integrity)
    assert got == FILES


def test_a_file_that_is_not_its_pin_is_refused_by_name(tmp_path, monkeypatch):
    fake_npm(tmp_path, monkeypatch, FILES)
    with pytest.raises(NpmPackError, match="dist/a.js de pkg@1.0.0 tiene sha256"):
        packed_files("pkg@1.0.0", {"dist/a.js": sha256(b"otra cosa")})


def test_a_file_the_package_lacks_is_named(tmp_path, monkeypatch):
    fake_npm(tmp_path, monkeypatch, FILES)
    with pytest.raises(NpmPackError, match="pkg@1.0.0 no trae dist/b.js"):
        packed_files("pkg@1.0.0", {"dist/b.js": sha256(b"")})


def test_a_tarball_that_is_not_the_registry_s_is_refused(tmp_path, monkeypatch):
    fake_npm(tmp_path, monkeypatch, FILES)
    other = base64.b64encode(hashlib.sha512(b"otro").digest()).decode()
    with pytest.raises(NpmPackError, match="sha512 .*rechazado"):
        packed_files("pkg@1.0.0", {"LICENSE": sha256(FILES["LICENSE"])}, other)


def test_npm_failing_or_missing_is_one_clear_error(tmp_path, monkeypatch):
    fake_npm(tmp_path, monkeypatch, FILES, status=1)
    with pytest.raises(NpmPackError, match=r"`npm pack pkg@1.0.0` falló \(1\): npm ERR! 404"):
        packed_files("pkg@1.0.0", {"LICENSE": sha256(FILES["LICENSE"])})
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(NpmPackError, match="se necesita npm"):
        packed_files("pkg@1.0.0", {"LICENSE": sha256(FILES["LICENSE"])})
