"""Old module paths (before issue 61's packages by concern), still importable.

``import lateseg.generate.question`` gives :mod:`lateseg.answer.question` itself (the same
module object, so a patch through either name is seen by both) with a
:class:`DeprecationWarning` naming the new path. :data:`MOVED` is the whole map; a path
not in it is not found as before. The finder is appended to ``sys.meta_path`` when
``lateseg`` is imported, so it is asked only after the real modules were not found.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Callable
from types import ModuleType

#: Old module path -> the module that holds its code now.
MOVED = {
    "lateseg.generate.question": "lateseg.answer.question",
    "lateseg.generate.scope": "lateseg.answer.scope",
    "lateseg.generate.conditions": "lateseg.answer.conditions",
    "lateseg.generate.extractive": "lateseg.answer.extractive",
    "lateseg.generate.phrase": "lateseg.answer.phrase",
    "lateseg.generate.sense": "lateseg.answer.sense",
    "lateseg.generate.cells": "lateseg.answer.cells",
    "lateseg.generate.lists": "lateseg.answer.lists",
    "lateseg.generate.confidence": "lateseg.answer.confidence",
    "lateseg.generate.citations": "lateseg.answer.citations",
    "lateseg.generate.support": "lateseg.check.support",
    "lateseg.generate.verbatim": "lateseg.check.verbatim",
    "lateseg.generate.remote_config": "lateseg.generate.remote.config",
    "lateseg.generate.remote_errors": "lateseg.generate.remote.errors",
    "lateseg.generate.remote_generator": "lateseg.generate.remote.generator",
    "lateseg.generate.chat_writer": "lateseg.generate.remote.chat",
    "lateseg.generate.context": "lateseg.generate.remote.context",
    "lateseg.generate.writer_choice": "lateseg.generate.remote.choice",
    "lateseg.generate.answering": "lateseg.ask.answering",
    "lateseg.generate.options": "lateseg.ask.options",
    "lateseg.ingest.pdf_layout": "lateseg.ingest.layout",
    "lateseg.ingest.ocr_cache": "lateseg.ingest.ocr.cache",
    "lateseg.ingest.ocr_contents": "lateseg.ingest.ocr.contents",
    "lateseg.ingest.ocr_leaders": "lateseg.ingest.ocr.leaders",
    "lateseg.ingest.ocr_missed": "lateseg.ingest.ocr.missed",
    "lateseg.ingest.ocr_tables": "lateseg.ingest.ocr.tables",
    "lateseg.ingest.ocr_words": "lateseg.ingest.ocr.words",
    "lateseg.ingest.pdf_tables": "lateseg.ingest.pdf.tables",
    "lateseg.ingest.pdf_text": "lateseg.ingest.pdf.text",
    "lateseg.ingest.text_layer": "lateseg.ingest.pdf.text_layer",
    "lateseg.ingest.treesitter": "lateseg.ingest.code.treesitter",
    "lateseg.ingest.contract_terms": "lateseg.ingest.contract.terms",
    "lateseg.index.store": "lateseg.index.sqlite.store",
    "lateseg.index.sqlite_schema": "lateseg.index.sqlite.schema",
    "lateseg.index.sqlite_lexical": "lateseg.index.sqlite.lexical",
    "lateseg.index.sqlite_integrity": "lateseg.index.sqlite.integrity",
    "lateseg.index.pg_store": "lateseg.index.postgres.store",
    "lateseg.index.pg_schema": "lateseg.index.postgres.schema",
    "lateseg.index.pg_lexical": "lateseg.index.postgres.lexical",
    "lateseg.index.pg_integrity": "lateseg.index.postgres.integrity",
    "lateseg.index.glob": "lateseg.index.postgres.glob",
    "lateseg.index.folder": "lateseg.open_index",
    "lateseg.index.retrieval": "lateseg.retrieve.retriever",
    "lateseg.index.provenance": "lateseg.retrieve.provenance",
}


class _Moved:
    """Finds an old path of :data:`MOVED` and loads it as its new module: a meta path
    finder and its loader (by their methods: ``importlib.abc`` would import
    ``importlib.resources`` into every ``import lateseg``)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)  # type: ignore[arg-type]  # a Loader by its methods

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module: ModuleType) -> None:
        new = MOVED[module.__name__]
        warnings.warn(
            f"{module.__name__} moved to {new} (lateseg issue 61): import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        # The import system returns what sys.modules holds under the name once this
        # returns: the new module itself, not a copy.
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (last: real modules are found first)."""
    if not any(isinstance(f, _Moved) for f in sys.meta_path):
        sys.meta_path.append(_Moved())


def forwarding(package: str, module: str) -> Callable[[str], object]:
    """A package's ``__getattr__`` that finds, in ``module``, the names the package had
    when it was that one module (``lateseg.ingest.ocr`` was ``ocr/engine.py``'s code):
    imported only when such a name is first asked for."""

    def __getattr__(name: str) -> object:
        try:
            return getattr(importlib.import_module(module), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
