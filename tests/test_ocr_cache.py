"""The OCR cache stays within its size: least recently used pages go first, a limit of 0
caches nothing, interrupted writes are cleared, and nothing outside the folder is touched.
(Tesseract reading through the cache: tests/test_ocr.py.)"""

from __future__ import annotations

import os
import time

import pytest

from lateseg.ingest.ocr import cache as ocr_cache


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LATESEG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(ocr_cache, "_written_since_prune", None)
    return tmp_path / "home"


def _words(n: int, text: str = "clause") -> list[dict]:
    return [
        {"text": text, "box": [i, 0, i + 5, 9], "conf": 91.5, "line": [1, 1, i]} for i in range(n)
    ]


def _digest(i: int) -> str:
    return f"{i:02x}" + "ab" * 31


def _age(digest: str, seconds_ago: float) -> None:
    t = time.time() - seconds_ago
    os.utime(ocr_cache._path(digest), (t, t))


def _size() -> int:
    return sum(p.stat().st_size for p in ocr_cache.cache_dir().rglob("*.json"))


def test_the_cache_keeps_the_pages_used_last_within_its_limit(monkeypatch):
    monkeypatch.setenv("LATESEG_OCR_CACHE_MB", "1")
    words = _words(1500)  # some 80 KB an entry
    for i in range(8):
        ocr_cache.store(_digest(i), words)
        _age(_digest(i), 1000 - i)  # written in order, a second apart
    assert _size() < 1 << 20
    # page 0, the oldest, is read again: it is now the one used last
    assert ocr_cache.cached(_digest(0)) == words
    for i in range(8, 20):
        ocr_cache.store(_digest(i), words)
        _age(_digest(i), 500 - i)
    assert _size() <= 1 << 20
    assert ocr_cache.cached(_digest(0)) == words
    assert ocr_cache.cached(_digest(1)) is None  # least recently used: gone
    assert ocr_cache.cached(_digest(19)) == words  # the last written stays


def test_a_limit_of_zero_caches_nothing_and_a_bad_limit_falls_back(monkeypatch, caplog):
    monkeypatch.setenv("LATESEG_OCR_CACHE_MB", "0")
    ocr_cache.store(_digest(1), _words(3))
    assert not ocr_cache.cache_dir().exists()
    assert ocr_cache.cached(_digest(1)) is None
    monkeypatch.setenv("LATESEG_OCR_CACHE_MB", "lots")
    assert ocr_cache.limit_bytes() == ocr_cache.DEFAULT_LIMIT_MB << 20
    assert "LATESEG_OCR_CACHE_MB" in caplog.text


def test_a_prune_clears_interrupted_writes_and_touches_nothing_outside(tmp_path, monkeypatch):
    monkeypatch.setenv("LATESEG_OCR_CACHE_MB", "1")
    ocr_cache.store(_digest(2), _words(10))
    shard = ocr_cache._path(_digest(2)).parent
    stale, fresh = shard / ".ocr-old.tmp", shard / ".ocr-new.tmp"
    for tmp in (stale, fresh):
        tmp.write_text("{")
    old = time.time() - 2 * ocr_cache.STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    outside = tmp_path / "precious.json"
    outside.write_bytes(b"x" * (3 << 20))
    (shard / ("ee" * 32 + ".json")).symlink_to(outside)  # a planted link: never followed
    ocr_cache.prune(0)
    assert not stale.exists() and fresh.exists()
    assert outside.stat().st_size == 3 << 20
    assert ocr_cache.cached(_digest(2)) is None  # limit 0 for the prune: every entry went


def test_an_entry_that_is_not_what_the_cache_writes_is_not_read(monkeypatch):
    ocr_cache.store(_digest(3), _words(2))
    path = ocr_cache._path(_digest(3))
    for bad in ('{"version": 1, "words": [{"text": ""}]}', "[", '{"version": 9, "words": []}'):
        path.write_text(bad)
        assert ocr_cache.cached(_digest(3)) is None
    monkeypatch.setattr(ocr_cache, "MAX_ENTRY_BYTES", 10)
    ocr_cache.store(_digest(3), _words(2))
    assert ocr_cache.cached(_digest(3)) is None
