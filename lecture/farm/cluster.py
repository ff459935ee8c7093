"""Render chunks on a Dask cluster (`distributed`): which scheduler, how we trust it, its lifetime.

    ffn-video build --quality 1080p --scheduler tls://HOST:8786 \
        --tls-ca ca.pem --tls-cert client.pem --tls-key client.key   # a running cluster, mutual TLS
    ffn-video build --quality 1080p --scheduler local:4            # 4 worker processes here
    FFN_DASK_SCHEDULER=tls://HOST:8786 FFN_TLS_CA=... ffn-video build ...   # the same, from the environment

Talking to a scheduler means running code both ways: the workers run whatever task they are
sent, and the client unpickles what comes back. So a remote scheduler is reached over
`tls://` with a `distributed.Security` built from certificate files (the cluster's own CA, and
a client certificate it signed: both ends check the other), and a plain `tcp://` (or `ucx://`)
address is refused before any connection unless `--insecure` (or FFN_DASK_INSECURE=1) says
the network is trusted. `local:N` starts its own cluster on this machine, as before.

The build submits every chunk through distributed's `concurrent.futures` executor
(`Client.get_executor()`), so it waits for chunks exactly as it waits for a local pool.
A worker that dies mid-chunk loses nothing that was finished: the scheduler gives its task
to another worker, and each chunk's file lands by rename, so a half-written one is never
seen. Workers need the repository, the virtual environment and the cache at the same paths
as this machine (a shared filesystem); a worker that cannot see them fails its first task
saying so (`lecture.farm.remote`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ffn_core import settings

if TYPE_CHECKING:
    from distributed import Client, Security

_ADDRESS_RE = re.compile(r"^(tcp|tls|ucx)://[^\s:/]+(:\d+)?$")
_LOCAL_RE = re.compile(r"^local:(\d+)$")
_TLS_FLAGS = (
    f"--tls-ca, --tls-cert y --tls-key (o {settings.TLS_CA.name}, {settings.TLS_CERT.name} y {settings.TLS_KEY.name})"
)


@dataclass(frozen=True)
class TlsFiles:
    """The certificate files a client shows a `tls://` cluster, all PEM."""

    ca: Path  # the authority that signed the cluster's certificates (and ours)
    cert: Path  # this client's certificate
    key: Path | None = None  # its private key; None when `cert` holds it too


@dataclass(frozen=True)
class SchedulerSpec:
    """Where chunks go: a running scheduler's address, or a cluster of local processes."""

    address: str = ""  # e.g. "tls://10.0.0.5:8786"
    local_workers: int = 0  # >0: start a LocalCluster with this many worker processes
    tls: TlsFiles | None = None  # for a tls:// address
    insecure: bool = False  # a tcp:// address the user accepted unencrypted (--insecure)

    @property
    def is_local(self) -> bool:
        return self.local_workers > 0

    @property
    def is_plain(self) -> bool:
        """A remote address that is neither encrypted nor authenticated."""
        return bool(self.address) and not self.address.startswith("tls://")


INSECURE_MEANING = (
    "aviso: --insecure: la conexión con el planificador de Dask en {address} no va cifrada ni autenticada. "
    "Cualquiera que alcance ese puerto o esa red puede leer lo que se envía, hacerse pasar por el planificador "
    "o por un trabajador, ejecutar código en los trabajadores y, con lo que devuelve (que esta máquina "
    "deserializa), ejecutar código aquí con tus permisos. Úsalo solo en una red en la que confíes por completo; "
    "si no, usa tls:// con " + _TLS_FLAGS + "."
)


def parse_scheduler(text: str, tls: TlsFiles | None = None, insecure: bool = False) -> SchedulerSpec:
    """`tls://HOST:PORT` (with `tls`), `tcp://HOST:PORT` or ucx:// (only `insecure`), or
    `local:N`; anything else is an error that says why. Nothing connects here."""
    value = text.strip()
    local = _LOCAL_RE.match(value)
    if local:
        workers = int(local.group(1))
        if workers < 1:
            raise ValueError(f"--scheduler {value}: un clúster local necesita al menos un trabajador (local:N, N >= 1)")
        return SchedulerSpec(local_workers=workers)
    if not _ADDRESS_RE.match(value):
        raise ValueError(
            f"--scheduler {value!r} no es una dirección de Dask: usa tls://SERVIDOR:PUERTO (p. ej. "
            f"tls://10.0.0.5:8786) o local:N para N procesos trabajadores en esta máquina"
        )
    if value.startswith("tls://"):
        if tls is None:
            raise ValueError(
                f"--scheduler {value}: faltan los certificados con que hablarle: {_TLS_FLAGS}; "
                f"los firma la autoridad (CA) del clúster"
            )
        return SchedulerSpec(address=value, tls=tls)
    if not insecure:
        raise ValueError(
            f"--scheduler {value}: la conexión no iría cifrada ni autenticada, y el planificador ejecuta código "
            f"en los trabajadores y le devuelve datos que esta máquina deserializa; usa tls://SERVIDOR:PUERTO con "
            f"{_TLS_FLAGS}, o añade --insecure (o {settings.DASK_INSECURE.name}=1) si la red es de plena confianza"
        )
    return SchedulerSpec(address=value, insecure=True)


def tls_files(ca: str | Path | None, cert: str | Path | None, key: str | Path | None) -> TlsFiles | None:
    """The certificate files named, each checked to be a readable file; None when none is named."""
    named = {"--tls-ca": ca, "--tls-cert": cert, "--tls-key": key}
    if not any(named.values()):
        return None
    for flag in ("--tls-ca", "--tls-cert"):
        if not named[flag]:
            raise ValueError(f"{flag}: falta; un clúster tls:// necesita {_TLS_FLAGS}")
    paths = {flag: Path(value).expanduser() for flag, value in named.items() if value}
    for flag, path in paths.items():
        if not path.is_file():
            raise ValueError(f"{flag} {path}: no existe ese archivo de certificado")
        try:
            path.open("rb").close()
        except OSError as err:
            raise ValueError(f"{flag} {path}: no se puede leer ({err.strerror})") from None
    return TlsFiles(ca=paths["--tls-ca"], cert=paths["--tls-cert"], key=paths.get("--tls-key"))


def configured_scheduler(
    cli_value: str | SchedulerSpec | None,
    tls_ca: str | None = None,
    tls_cert: str | None = None,
    tls_key: str | None = None,
    insecure: bool = False,
) -> SchedulerSpec | None:
    """The scheduler asked for: `--scheduler`, else $FFN_DASK_SCHEDULER, else none (local pool);
    its certificates from the `--tls-*` options, else the FFN_TLS_* variables. A spec already
    resolved (by the command line) is returned as it is."""
    if isinstance(cli_value, SchedulerSpec):
        return cli_value
    value = cli_value or settings.raw(settings.DASK_SCHEDULER) or ""
    if not value:
        return None
    tls = tls_files(
        tls_ca or settings.path_setting(settings.TLS_CA),
        tls_cert or settings.path_setting(settings.TLS_CERT),
        tls_key or settings.path_setting(settings.TLS_KEY),
    )
    return parse_scheduler(value, tls, insecure or settings.flag(settings.DASK_INSECURE))


def security(spec: SchedulerSpec) -> Security | None:
    """The `distributed.Security` for `spec`: mutual TLS from its files; None for a local or an
    accepted plain address. Refuses a plain address nobody accepted, whoever built the spec."""
    if spec.is_local:
        return None
    if spec.is_plain:
        if not spec.insecure:
            raise ValueError(_refusal(spec.address))
        return None
    if spec.tls is None:
        raise ValueError(_refusal(spec.address))
    from distributed import Security

    return Security(
        require_encryption=True,
        tls_ca_file=str(spec.tls.ca),
        tls_client_cert=str(spec.tls.cert),
        tls_client_key=str(spec.tls.key) if spec.tls.key else None,
    )


def _refusal(address: str) -> str:
    """Why `address`, as given, may not be used (the message `parse_scheduler` raises)."""
    try:
        parse_scheduler(address)
    except ValueError as err:
        return str(err)
    return ""


@dataclass(frozen=True)
class DaskRun:
    """A connected client and its executor, for the length of one build."""

    client: Client
    executor: Executor

    @property
    def workers(self) -> int:
        return max(len(self.client.scheduler_info(n_workers=-1)["workers"]), 1)


@contextmanager
def dask_executor(spec: SchedulerSpec, timeout_s: float = 30.0) -> Iterator[DaskRun]:
    """A Dask client on `spec` for one build; a local cluster is started and stopped with it."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError(
            "--scheduler necesita Dask: instala 'distributed' en el entorno virtual (.venv/bin/pip install distributed)"
        ) from None
    secure = security(spec)  # before any connection: a refused address is never dialled
    _send_worker_code_by_value()
    cluster = None
    try:
        if spec.is_local:
            # One thread per worker: each chunk is one manim process, which keeps about two
            # cores busy at 1080p; more threads per worker would only oversubscribe.
            cluster = LocalCluster(
                n_workers=spec.local_workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = Client(cluster, timeout=timeout_s)
        else:
            try:
                client = Client(spec.address, timeout=timeout_s, security=secure)
            except OSError as err:
                raise RuntimeError(_connect_error(spec, err)) from None
        try:
            # pure=False: a chunk submitted again after a failure is new work, not a cached result.
            yield DaskRun(client, client.get_executor(pure=False))
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _connect_error(spec: SchedulerSpec, err: OSError) -> str:
    reason = f"no se pudo conectar con el planificador de Dask en {spec.address} ({err}); "
    if spec.tls is None:
        return reason + "¿está en marcha (dask scheduler) y es accesible desde esta máquina?"
    return reason + (
        f"¿está en marcha y es accesible, y firmó su certificado la misma autoridad que {spec.tls.cert} "
        f"(--tls-ca {spec.tls.ca})? Un planificador con TLS rechaza a quien no muestra un certificado de su CA"
    )


def _send_worker_code_by_value() -> None:
    import cloudpickle

    from lecture.farm import remote as dask_worker

    cloudpickle.register_pickle_by_value(dask_worker)
