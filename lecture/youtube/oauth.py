"""OAuth for the upload: the lecturer's client secrets, the installed-app flow, the token.

The client secrets are the JSON file Google Cloud gives for an OAuth client of type
"Desktop app" (`{"installed": {...}}`); they are checked before anything is sent. The first
upload opens the browser on Google's consent page and listens on a local port for the
answer (google-auth-oauthlib's installed-app flow); the token it returns is stored in
`$XDG_CONFIG_HOME/ffn-video/` (or `~/.config/ffn-video/`) with mode 0600, refreshed when
it expires, and never printed. A token Google will no longer refresh (revoked, or expired
for good) is removed, and the lecturer is told to publish again to authorise anew.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecture.youtube import YoutubeError

if TYPE_CHECKING:  # google-auth loads only when credentials are needed
    from google.auth.exceptions import RefreshError
    from google.auth.transport import Request
    from google.oauth2.credentials import Credentials

SCOPES = ("https://www.googleapis.com/auth/youtube.force-ssl",)  # upload, update, captions, thumbnails
TOKEN_NAME = "youtube-token.json"
_REQUIRED = ("client_id", "client_secret", "auth_uri", "token_uri")


class CredentialsError(YoutubeError):
    """The credentials are missing, malformed or refused."""


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ffn-video"


def token_path() -> Path:
    return config_dir() / TOKEN_NAME


def load_client_secrets(path: Path | None) -> dict:
    """The client configuration in `path`, checked; errors name the file and what to do."""
    how = (
        "descárgalo de Google Cloud Console > APIs y servicios > Credenciales > "
        "ID de cliente de OAuth de tipo «App de escritorio»"
    )
    if path is None:
        raise CredentialsError(f"falta --client-secrets ARCHIVO: {how}")
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CredentialsError(f"{path}: no existe el archivo de secretos de cliente; {how}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CredentialsError(f"{path}: no es un JSON válido de secretos de cliente ({err}); {how}") from None
    if not isinstance(data, dict) or not isinstance(data.get("installed"), dict):
        web = isinstance(data, dict) and "web" in data
        kind = "de tipo «Aplicación web»" if web else "sin la clave «installed»"
        raise CredentialsError(
            f"{path}: secretos de cliente {kind}; hace falta un cliente de tipo «App de escritorio» ({how})"
        )
    installed = data["installed"]
    missing = [k for k in _REQUIRED if not isinstance(installed.get(k), str) or not installed[k].strip()]
    if missing:
        raise CredentialsError(f"{path}: a «installed» le faltan {', '.join(missing)}; {how}")
    return data


def write_token(path: Path, token_json: str) -> None:
    """Store the token readable by its owner only (0600, folder 0700), atomically."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token_json)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def run_installed_app_flow(client_config: dict[str, Any]) -> Credentials:
    """Google's consent page in the browser, the answer on a free local port."""
    from google_auth_oauthlib.flow import InstalledAppFlow

    flow = InstalledAppFlow.from_client_config(client_config, scopes=list(SCOPES))
    authorised: Credentials = flow.run_local_server(  # google-auth-oauthlib has no type information
        host="localhost",
        port=0,
        open_browser=True,
        authorization_prompt_message="Abre esta dirección en el navegador para autorizar la subida a YouTube:\n{url}",
        success_message="Autorización completada: ya puedes cerrar esta pestaña y volver a la terminal.",
    )
    return authorised


def credentials(
    client_secrets: Path,
    token: Path | None = None,
    flow: Callable[[dict[str, Any]], Credentials] = run_installed_app_flow,
    transport: Request | None = None,
) -> Credentials:
    """Valid credentials for YouTube: the stored token, refreshed if needed (through
    `transport`, by default over `requests`), or a new authorisation through `flow` (stored
    for next time) when there is no usable token."""
    from google.auth.exceptions import RefreshError, TransportError
    from google.oauth2.credentials import Credentials

    config = load_client_secrets(client_secrets)
    token = Path(token) if token else token_path()
    creds = None
    if token.exists():
        try:
            creds = Credentials.from_authorized_user_file(str(token), list(SCOPES))
        except (ValueError, KeyError, json.JSONDecodeError):
            creds = None  # unreadable: authorise again and overwrite it
        if creds is not None and creds.client_id != config["installed"]["client_id"]:
            creds = None  # made for another OAuth client
    if creds is not None and not creds.valid and creds.refresh_token:
        if transport is None:
            from google.auth.transport.requests import Request as RequestsTransport

            transport = RequestsTransport()
        try:
            creds.refresh(transport)
        except RefreshError as err:
            raise refresh_refused(token, err) from None
        except TransportError as err:
            raise CredentialsError(
                f"no se pudo renovar el token guardado en {token}: sin conexión con Google ({err})"
            ) from None
    if creds is None or not creds.valid:
        creds = flow(config)
    write_token(token, creds.to_json())
    return creds


def refresh_refused(token: Path, err: RefreshError) -> CredentialsError:
    """The error for Google's refusal to refresh the token stored in `token`. A refusal for
    good (revoked, expired, or another client's) removes it, so the next publish asks for
    consent instead of failing the same way; a passing one keeps it."""
    why = str(err.args[0]) if err.args else str(err)
    if err.retryable:
        return CredentialsError(
            f"Google no pudo renovar ahora el permiso guardado en {token} ({why}); vuelve a intentarlo en unos minutos"
        )
    token.unlink(missing_ok=True)
    return CredentialsError(
        f"Google ya no acepta el permiso guardado para subir a YouTube ({why}): se revocó o caducó, "
        f"y se borró {token}. Autoriza de nuevo: vuelve a ejecutar `ffn-video publish --upload "
        f"--client-secrets ARCHIVO`, que abre el navegador en la página de permisos de Google "
        f"(una subida a medias se retoma donde quedó)"
    )
