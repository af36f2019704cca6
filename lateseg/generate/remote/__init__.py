"""Remote writers: a model behind an OpenAI-compatible URL writes the answer from the
passages. :mod:`~lateseg.generate.remote.client` speaks HTTP (:class:`RemoteLLM`),
:mod:`~lateseg.generate.remote.config` holds :class:`LLMConfig`, the chat and completion
writers (:mod:`~lateseg.generate.remote.chat`, :mod:`~lateseg.generate.remote.choice`)
shape what is sent, :mod:`~lateseg.generate.remote.context` fits the passages to the
server's budget and :mod:`~lateseg.generate.remote.generator` turns the reply into a
checked answer.

No model runs in this process; may import :mod:`lateseg.answer`, :mod:`lateseg.check` and
:mod:`lateseg.generate`'s shared parts (prompts, compose, the writer protocol).
"""

from __future__ import annotations

from lateseg._moved import forwarding

# The names this module had before it became a package (issue 61): from client.py
# (RemoteLLM, Completion, Usage, ESTIMATE, SERVER_TOKENIZER; LLMConfig through it),
# imported when first asked for, so importing a writer's config loads no HTTP client.
__getattr__ = forwarding(__name__, "lateseg.generate.remote.client")
