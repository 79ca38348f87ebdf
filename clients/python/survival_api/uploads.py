"""Streamed upload bodies for jobs and survey uploads, from a file or from rows in memory.

A file is sent as it is read, never loaded whole; rows are encoded as NDJSON one at a time. A
``.gz`` file goes with ``Content-Encoding: gzip``, and ``compress=True`` gzips rows on the fly.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

from .bodies import iter_records, json_bytes, record_body
from .results import media_type_for_path
from .transport import RequestBody

FORMATS = {
    "csv": "text/csv",
    "ndjson": "application/x-ndjson",
    "geojson": "application/geo+json",
}

_CHUNK = 64 * 1024


def upload_body(source: Any, format: str | None = None, compress: bool = False) -> RequestBody:
    """The body of an upload from ``source``.

    ``source`` may be:

    * a path (``str`` or :class:`~pathlib.Path`): streamed from disk, its format from the extension
      (``.csv``, ``.ndjson``/``.jsonl``, ``.geojson``/``.json``; ``.gz`` is sent gzip-encoded);
    * a pandas DataFrame: sent as CSV, every column (other columns are echoed in job results);
    * an iterable of mappings (rows): sent as NDJSON, one JSON object a line. A list or tuple can
      be sent again for a retry; a generator is sent once;
    * a binary file object (``format`` required).

    ``format`` (``csv``, ``ndjson``, ``geojson``) overrides what the source suggests.
    """
    if isinstance(source, (str, Path)):
        return _file_body(Path(source), format)
    if _is_dataframe(source):
        data = source.to_csv(index=False).encode("utf-8")
        return _bytes_body(data, _media_type(format or "csv"), compress)
    if hasattr(source, "read"):
        return _stream_body(source, format)
    if isinstance(source, (bytes, bytearray, Mapping)):
        raise TypeError("upload a path, a DataFrame, an iterable of row mappings or a binary file")
    return _rows_body(source, format, compress)


def _file_body(path: Path, format: str | None) -> RequestBody:
    if not path.is_file():
        raise FileNotFoundError(path)
    media_type = _media_type(format) if format else media_type_for_path(path)
    encoding = "gzip" if path.suffix.lower() == ".gz" else None
    return RequestBody(open=lambda: path.open("rb"), content_type=media_type, content_encoding=encoding)


def _bytes_body(data: bytes, media_type: str, compress: bool) -> RequestBody:
    if compress:
        return RequestBody(open=lambda: _gzip_all(data), content_type=media_type, content_encoding="gzip")
    return RequestBody(open=lambda: data, content_type=media_type)


def _stream_body(stream: IO[bytes], format: str | None) -> RequestBody:
    if format is None:
        raise ValueError("format= is required to upload from a file object (csv, ndjson or geojson)")
    seekable = bool(getattr(stream, "seekable", lambda: False)())
    start = stream.tell() if seekable else 0

    def reopen() -> IO[bytes]:
        if seekable:
            stream.seek(start)
        return _Unclosable(stream)

    return RequestBody(open=reopen, content_type=_media_type(format), replayable=seekable)


def _rows_body(rows: Iterable[Any], format: str | None, compress: bool) -> RequestBody:
    if format not in (None, "ndjson"):
        raise ValueError("rows are uploaded as NDJSON; write a file to upload CSV or GeoJSON")
    replayable = isinstance(rows, Sequence)

    def lines() -> Iterator[bytes]:
        chunks = (json_bytes(record_body(row)) + b"\n" for row in iter_records(rows))
        return _gzip_stream(chunks) if compress else chunks

    return RequestBody(
        open=lines,
        content_type=FORMATS["ndjson"],
        content_encoding="gzip" if compress else None,
        replayable=replayable,
    )


def _media_type(format: str) -> str:
    try:
        return FORMATS[format.lower()]
    except KeyError:
        raise ValueError(f"format is one of {', '.join(FORMATS)}, not {format!r}") from None


def _gzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    compressor = zlib.compressobj(wbits=31)  # 31: gzip framing
    pending = io.BytesIO()
    for chunk in chunks:
        pending.write(compressor.compress(chunk))
        if pending.tell() >= _CHUNK:
            yield pending.getvalue()
            pending = io.BytesIO()
    pending.write(compressor.flush())
    yield pending.getvalue()


def _gzip_all(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=31)
    return compressor.compress(data) + compressor.flush()


class _Unclosable(io.RawIOBase):
    """Reads the caller's file without closing it: the caller opened it and closes it."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__()
        self._stream = stream

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _is_dataframe(value: Any) -> bool:
    return hasattr(value, "to_csv") and hasattr(value, "columns")
