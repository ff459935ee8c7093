"""A cluster that checks who it talks to: a plain tcp:// scheduler is refused before any
connection unless --insecure says so (and what that means is printed); a tls:// one is
reached with the certificates named, and a client without a certificate of the cluster's
authority is refused by the scheduler."""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
from pathlib import Path

import pytest
from fixtures.build_support import base_lecture, frames_of, fresh_copy

from ffn_core import settings
from lecture.cli import main
from lecture.farm.cluster import SchedulerSpec, TlsFiles, configured_scheduler, dask_executor, parse_scheduler

pytest.importorskip("distributed")
x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: E402


def _write_key(key, path: Path) -> Path:
    path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return path


def make_authority(folder: Path, name: str) -> TlsFiles:
    """A self-signed CA and one certificate it signed (for the scheduler, the workers and a
    client alike, as a small cluster would), written as PEM files under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )  # digital signature, cert sign, CRL sign
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} dask")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return TlsFiles(folder / "ca.pem", folder / "cert.pem", _write_key(key, folder / "key.pem"))


class Listener:
    """A TCP port on this machine that counts who connects to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.setblocking(False)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"

    def connections(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1


@pytest.fixture
def listener():
    port = Listener()
    yield port
    port.sock.close()


@pytest.fixture
def no_scheduler_env(monkeypatch):
    for variable in (
        settings.DASK_SCHEDULER,
        settings.DASK_INSECURE,
        settings.TLS_CA,
        settings.TLS_CERT,
        settings.TLS_KEY,
    ):
        monkeypatch.delenv(variable.name, raising=False)


def test_a_tcp_scheduler_without_insecure_is_refused_before_any_connection(
    listener, no_scheduler_env, monkeypatch, capsys
):
    def no_build(*args, **kwargs):
        raise AssertionError("the build started with a refused scheduler")

    monkeypatch.setattr("lecture.build.pipeline.build", no_build)
    assert main(["build", "--scheduler", listener.address]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--insecure" in err and "tls://" in err and "cifrada" in err
    with pytest.raises(ValueError, match="--insecure"):  # a spec built by hand is refused as well
        with dask_executor(SchedulerSpec(address=listener.address)):
            pass
    with pytest.raises(ValueError, match="--tls-ca"):  # tls:// without certificates
        with dask_executor(SchedulerSpec(address=listener.address.replace("tcp", "tls"))):
            pass
    assert listener.connections() == 0


def test_insecure_is_accepted_and_says_what_it_means(listener, no_scheduler_env, monkeypatch, capsys):
    seen = {}

    def stop_here(*args, scheduler=None, **kwargs):
        seen["scheduler"] = scheduler
        raise ValueError("fin de la prueba")

    monkeypatch.setattr("lecture.build.pipeline.build", stop_here)
    assert main(["build", "--scheduler", listener.address, "--insecure"]) == 2
    assert seen["scheduler"] == SchedulerSpec(address=listener.address, insecure=True)
    err = " ".join(capsys.readouterr().err.split())
    assert "--insecure" in err and "no va cifrada ni autenticada" in err and "ejecutar código aquí" in err
    monkeypatch.setenv(settings.DASK_SCHEDULER.name, listener.address)  # the environment's form
    with pytest.raises(ValueError, match="--insecure"):
        configured_scheduler(None)
    monkeypatch.setenv(settings.DASK_INSECURE.name, "1")
    assert configured_scheduler(None) == SchedulerSpec(address=listener.address, insecure=True)
    monkeypatch.setenv(settings.DASK_INSECURE.name, "quizá")
    with pytest.raises(ValueError, match=settings.DASK_INSECURE.name):
        configured_scheduler(None)
    assert listener.connections() == 0


def test_tls_takes_its_certificates_from_the_options_or_the_environment(tmp_path, no_scheduler_env, monkeypatch):
    files = make_authority(tmp_path / "ca", "prueba")
    with pytest.raises(ValueError, match="--tls-cert"):
        parse_scheduler("tls://10.0.0.5:8786")
    spec = configured_scheduler("tls://10.0.0.5:8786", str(files.ca), str(files.cert), str(files.key))
    assert spec == SchedulerSpec(address="tls://10.0.0.5:8786", tls=files)
    with pytest.raises(ValueError, match="nada.pem"):
        configured_scheduler("tls://10.0.0.5:8786", str(files.ca), str(tmp_path / "nada.pem"))
    monkeypatch.setenv(settings.DASK_SCHEDULER.name, "tls://10.0.0.5:8786")
    monkeypatch.setenv(settings.TLS_CA.name, str(files.ca))
    monkeypatch.setenv(settings.TLS_CERT.name, str(files.cert))
    monkeypatch.setenv(settings.TLS_KEY.name, str(files.key))
    assert configured_scheduler(None) == spec
    assert parse_scheduler("local:2") == SchedulerSpec(local_workers=2)  # local:N as before


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """A LocalCluster that speaks only TLS, with certificates of its own self-signed authority."""
    from distributed import LocalCluster, Security

    files = make_authority(tmp_path_factory.mktemp("cluster-ca"), "clúster")
    roles = {
        f"tls_{role}_{part}": str(getattr(files, part))
        for role in ("scheduler", "worker", "client")
        for part in ("cert", "key")
    }
    security = Security(require_encryption=True, tls_ca_file=str(files.ca), **roles)
    cluster = LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        protocol="tls://",
        host="127.0.0.1",
        security=security,
        dashboard_address=None,
    )
    try:
        yield cluster, files
    finally:
        cluster.close()


@pytest.mark.slow
def test_the_tiny_plan_renders_on_a_tls_cluster_named_on_the_command_line(tls_cluster, tmp_path, monkeypatch):
    cluster, files = tls_cluster
    address = cluster.scheduler_address
    assert address.startswith("tls://127.0.0.1:")
    lecture = fresh_copy(tmp_path / "lecture", with_build=False).apply(monkeypatch)
    for variable in (settings.DASK_SCHEDULER, settings.TLS_CA, settings.TLS_CERT, settings.TLS_KEY):
        monkeypatch.delenv(variable.name, raising=False)
    proc = lecture.cli(
        "build", "--only", "tiny_b", "--chunk-s", "1", "--scheduler", address,
        "--tls-ca", str(files.ca), "--tls-cert", str(files.cert), "--tls-key", str(files.key),
    )  # fmt: skip
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert "--insecure" not in err
    chunks = sorted((lecture.work("tiny_b") / "chunks").glob("*.record.json"))
    workers = {json.loads(p.read_text(encoding="utf-8"))["extra"]["worker"] for p in chunks}
    assert len(chunks) >= 2 and workers and all(w.startswith("tls://127.0.0.1:") for w in workers)
    rendered = next(lecture.work("tiny_b").glob("*.mp4"))
    assert frames_of(rendered) == frames_of(next(base_lecture().work("tiny_b").glob("*.mp4")))


@pytest.mark.slow
def test_a_client_without_the_clusters_certificate_is_refused(tls_cluster, tmp_path):
    cluster, files = tls_cluster
    address = cluster.scheduler_address
    stranger = make_authority(tmp_path / "otra", "otra")
    # Trusts the cluster's authority, but shows a certificate another authority signed.
    impostor = SchedulerSpec(address=address, tls=TlsFiles(files.ca, stranger.cert, stranger.key))
    with pytest.raises(RuntimeError, match="certificado") as refused:
        with dask_executor(impostor, timeout_s=5):
            pass
    assert address in str(refused.value) and "SSL" in str(refused.value)  # the handshake, not a timeout
    # No certificate at all: the scheduler ends the handshake.
    host, port = address.removeprefix("tls://").split(":")
    context = ssl.create_default_context(cafile=str(files.ca))
    context.check_hostname = False
    with pytest.raises((ssl.SSLError, ConnectionError)):
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            with context.wrap_socket(raw) as tls:
                tls.sendall(b"\0" * 8)
                if not tls.recv(1):  # TLS 1.3 reports a refused client certificate on first read
                    raise ConnectionError("closed")
    # With the cluster's own certificate, the same client is let in.
    with dask_executor(SchedulerSpec(address=address, tls=files), timeout_s=30) as run:
        assert run.workers == 1
