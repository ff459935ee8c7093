"""How a failed build step is told in the report: a full disk is said as such, with the
folder to free, so the lecturer knows the finished work is kept."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

DISK_FULL_SIGNS = ("No space left on device", "File too large", "Disk quota exceeded")
DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
NEARLY_FULL_BYTES = 1 << 20  # a tool that failed without saying why, with less free than this: the disk


def is_disk_full(err) -> bool:
    """True when `err` (an exception, its causes, or a tool's message) says the disk is full."""
    seen = err
    while isinstance(seen, BaseException):
        if isinstance(seen, OSError) and seen.errno in DISK_FULL_ERRNOS:
            return True
        seen = seen.__cause__ or seen.__context__
    return any(sign in str(err) for sign in DISK_FULL_SIGNS)


def nearly_full(folder: Path, margin_bytes: int = NEARLY_FULL_BYTES) -> bool:
    try:
        return shutil.disk_usage(folder).free < margin_bytes
    except OSError:
        return False


def disk_full_message(step: str, folder: Path) -> str:
    return (
        f"{step}: disco lleno al escribir en {folder}. Libera espacio y vuelve a compilar: "
        f"lo ya terminado se conserva y no se repite, y la lecture.mp4 anterior sigue intacta."
    )


def failure_message(step: str, err: BaseException | str, folder: Path) -> str:
    """The report's line for a failed step (seen in the error, or in the folder's free
    space when a tool failed without saying)."""
    if is_disk_full(err) or nearly_full(folder):
        return disk_full_message(step, folder)
    return f"{step}: {err}"
