"""Every kind of answer writer, registered: importing this module imports each kind's
module, so :data:`WRITERS` holds them all (``server``, ``langchain``, ``local``; see
:mod:`lateseg.generate.writer`). None of them imports its heavy part here: httpx,
langchain-core and the generator's model are imported when a writer is made or used.

Adding a kind is one module with one ``@register`` line
(:func:`lateseg.generate.writer.register`) and its import below.
"""

from __future__ import annotations

from lateseg.generate.writer import WRITERS, Writer, WriterKind, register

# isort: split
# in the order the kinds are asked (they accept different objects: none shadows another)
from lateseg.generate.remote import client as _client

# isort: split
from lateseg.generate.remote import chat as _chat

# isort: split
from lateseg.generate import local_writer as _local_writer

#: The modules of the kinds, in registration order (imported for their ``@register``).
KIND_MODULES = (_client, _chat, _local_writer)

__all__ = ["WRITERS", "Writer", "WriterKind", "register"]
