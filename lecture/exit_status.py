"""How an expected failure ends a command: one line in Spanish and an exit status.

The statuses `ffn-video` exits with (also in `ffn-video --help`):

    0    done
    1    the command ran, and what it made or checked has failures (a scene that did not
         render, a rule of the YouTube bundle not met)
    2    what was asked cannot be done as written: an option, the plan, a script, the
         YouTube settings, or a program or service that refused (argparse also exits 2)
    3    another build of this checkout, or another publish of this bundle, is running
    4    the file system refused: disk full, no permission, a file or folder missing
    5    the network refused: no connection, a timeout, a certificate not accepted
    130  interrupted (Ctrl-C)

Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
import socket
import ssl
from dataclasses import dataclass

DONE = 0
FAILURES = 1
REFUSED = 2
LOCKED = 3
FILE_SYSTEM = 4
NETWORK = 5
INTERRUPTED = 130

STATUSES_HELP = (
    "estado de salida: 0 hecho; 1 terminó con fallos (una escena, una regla); 2 la orden, el plan, un guion "
    "o un programa no lo permiten; 3 otra compilación o publicación está en curso; 4 el disco o los permisos "
    "lo impidieron; 5 la red lo impidió; 130 interrumpido (Ctrl-C)"
)

# strerror comes in the system's language (English here); the lecturer reads Spanish.
_REASONS = {
    errno.ENOSPC: "no queda espacio en el disco",
    errno.EDQUOT: "se agotó tu cuota de disco",
    errno.EACCES: "permiso denegado",
    errno.EPERM: "operación no permitida",
    errno.EROFS: "el sistema de archivos es de solo lectura",
    errno.ENOENT: "no existe",
    errno.ENOTDIR: "una parte de la ruta no es una carpeta",
    errno.EISDIR: "es una carpeta, no un archivo",
    errno.EEXIST: "ya existe",
    errno.ENOTEMPTY: "la carpeta no está vacía",
    errno.EMFILE: "demasiados archivos abiertos a la vez",
    errno.ENFILE: "demasiados archivos abiertos en el sistema",
    errno.EIO: "error de lectura o escritura en el disco",
    errno.ENAMETOOLONG: "el nombre es demasiado largo",
    errno.EXDEV: "no se puede mover entre dos discos",
    errno.ETIMEDOUT: "se agotó el tiempo de espera",
    errno.ECONNREFUSED: "conexión rechazada",
    errno.ECONNRESET: "la otra parte cortó la conexión",
    errno.EHOSTUNREACH: "no se alcanza el servidor",
    errno.ENETUNREACH: "no hay red",
}
_WHAT_TO_DO = {
    errno.ENOSPC: "libera espacio (o apunta FFN_CACHE_DIR / FFN_RENDERS_DIR a otro disco) y vuelve a lanzar la "
    "orden: lo ya terminado se conserva",
    errno.EDQUOT: "libera espacio y vuelve a lanzar la orden: lo ya terminado se conserva",
    errno.EACCES: "revisa los permisos de esa carpeta, o apunta FFN_CACHE_DIR / FFN_RENDERS_DIR a una tuya",
    errno.EPERM: "revisa los permisos de esa carpeta, o apunta FFN_CACHE_DIR / FFN_RENDERS_DIR a una tuya",
    errno.EROFS: "apunta FFN_CACHE_DIR / FFN_RENDERS_DIR a una carpeta en la que se pueda escribir",
}


@dataclass(frozen=True)
class Failure:
    """What the command prints (one line, Spanish) and the status it exits with."""

    status: int
    line: str


def one_line(text: str) -> str:
    """`text` on one line: a message's own line breaks become separators."""
    return " · ".join(part.strip() for part in str(text).splitlines() if part.strip())


def file_system_line(err: OSError) -> str:
    """An OSError in words: what went wrong, on which file, and what to do."""
    reason = _REASONS.get(err.errno or -1) or (
        f"{errno.errorcode.get(err.errno or -1, 'error del sistema')} ({err.strerror or err})"
    )
    where = ": ".join(str(name) for name in (err.filename, err.filename2) if name is not None)
    line = f"error de archivo: {where}: {reason}" if where else f"error de archivo: {reason}"
    advice = _WHAT_TO_DO.get(err.errno or -1)
    return f"{line}; {advice}" if advice else line


def network_line(err: OSError) -> str:
    if isinstance(err, ssl.SSLError):
        reason = f"la conexión segura (TLS) fue rechazada ({err.reason or type(err).__name__})"
    elif isinstance(err, socket.gaierror):
        reason = "no se encuentra el servidor por su nombre (¿hay red? ¿está bien escrito?)"
    elif isinstance(err, TimeoutError) and err.errno is None:
        reason = _REASONS[errno.ETIMEDOUT]
    else:
        reason = _REASONS.get(err.errno or -1) or f"{type(err).__name__} ({one_line(str(err))})"
    return f"error de red: {reason}; comprueba la conexión y vuelve a lanzar la orden"


def is_network(err: OSError) -> bool:
    return isinstance(err, (ConnectionError, TimeoutError, socket.gaierror, ssl.SSLError)) or err.errno in (
        errno.ETIMEDOUT,
        errno.EHOSTUNREACH,
        errno.ENETUNREACH,
    )


def interrupted_line(command: str) -> str:
    return (
        f"ffn-video {command}: interrumpido; lo ya terminado se conserva (cada archivo se escribe entero o no "
        f"se escribe), vuelve a lanzar la orden para seguir"
    )
