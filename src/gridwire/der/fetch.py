"""Downloading IEEE's companion workbook and finding it in what was downloaded.

IEEE distributes the IEEE 1815.2 point workbook free of charge, in a zip archive of the
standard's downloads, and does not allow others to redistribute it: each user fetches their own
copy (``gridwire tables fetch``) or downloads it themselves (``gridwire tables build``).
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from urllib.parse import urlsplit

import httpx

from gridwire import __version__
from gridwire.der.errors import FetchError, WorkbookError
from gridwire.der.workbook import WorkbookResult, read_workbook_bytes
from gridwire.errors import GridwireError

IEEE_DOWNLOAD_URL = (
    "https://standards.ieee.org/wp-content/uploads/import/download/1815.2-2025_downloads.zip"
)
MAX_DOWNLOAD = 64 * 1024 * 1024
MAX_NESTING = 2
_OFFLINE_HINT = "download it elsewhere and run: gridwire tables build WORKBOOK.xlsx"


def _one_line(text: object) -> str:
    lines = str(text).strip().splitlines()
    return lines[0] if lines else ""


def download(url: str, *, timeout: float = 60.0) -> bytes:
    """The body of ``url`` (http or https), at most MAX_DOWNLOAD octets; FetchError in one line
    otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"'{url}' is not an http or https address")
    host = parts.hostname
    headers = {"User-Agent": f"gridwire/{__version__}"}
    try:
        with (
            httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise FetchError(
                    f"{url} answered {response.status_code} {response.reason_phrase}".rstrip()
                )
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_DOWNLOAD:
                    raise FetchError(f"{url} sent more than {MAX_DOWNLOAD // 2**20} MiB")
            return bytes(body)
    except httpx.TimeoutException:
        raise FetchError(f"no answer from {host} within {timeout:g} s; {_OFFLINE_HINT}") from None
    except httpx.ConnectError as exc:
        raise FetchError(
            f"cannot reach {host} ({_one_line(exc) or 'no connection'}); {_OFFLINE_HINT}"
        ) from None
    except httpx.HTTPError as exc:
        raise FetchError(f"downloading from {host} failed ({_one_line(exc)})") from None


def find_workbook(data: bytes, name: str, depth: int = 0) -> WorkbookResult:
    """The profile's workbook in ``data``: ``data`` itself when it is a workbook, else the first
    .xlsx in the zip archive (or in an archive inside it) that reads as the profile's tables."""
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise FetchError(f"{name} is neither a workbook nor a zip archive")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir()]
        names = {m.filename for m in members}
        if "[Content_Types].xml" in names and any(n.startswith("xl/") for n in names):
            try:
                return read_workbook_bytes(data, name)
            except WorkbookError as exc:
                raise FetchError(_one_line(exc)) from None
        failures: list[str] = []
        for member in members:
            base = posixpath.basename(member.filename)
            lower = base.lower()
            if "__MACOSX" in member.filename or base.startswith(("~$", "._")):
                continue
            nested = lower.endswith(".zip") and depth < MAX_NESTING
            if not (lower.endswith(".xlsx") or nested):
                continue
            if member.file_size > MAX_DOWNLOAD:
                failures.append(f"{base}: larger than {MAX_DOWNLOAD // 2**20} MiB")
                continue
            content = archive.read(member)
            try:
                if nested:
                    return find_workbook(content, base, depth + 1)
                return read_workbook_bytes(content, base)
            except (WorkbookError, FetchError) as exc:
                failures.append(_one_line(exc))
    except GridwireError:
        raise
    except Exception as exc:  # zipfile raises many kinds (IndexError, KeyError, zlib.error...)
        raise FetchError(f"{name}: a damaged zip archive ({_one_line(exc)})") from None
    if failures:
        raise FetchError(f"{name} holds no IEEE 1815.2 point workbook ({'; '.join(failures)})")
    raise FetchError(f"{name} holds no .xlsx workbook")


def fetch_tables(url: str = IEEE_DOWNLOAD_URL, *, timeout: float = 60.0) -> WorkbookResult:
    """Download ``url`` and read the profile's workbook in it."""
    name = posixpath.basename(urlsplit(url).path) or urlsplit(url).hostname or "download"
    return find_workbook(download(url, timeout=timeout), name)
