"""What the local generator is told: the system prompt by style, the passages' order,
the marker before the question (everything before it is the context a
:class:`~lateseg.generate.local.KVSession` prefills once), the strings where an answer
stops, and the rendered :class:`Prompt`."""

from __future__ import annotations

from dataclasses import dataclass

SYSTEM_PROMPT = (
    "You answer questions about documents using only the numbered passages given. "
    "Answer in one or two sentences and cite the passage you used with its number in "
    "square brackets, for example [1]. If the passages do not answer the question, say so."
)
#: System prompts by style: "plain", or "quote-first" (the model first copies the
#: sentence it relies on). bench/answers.py measures them.
PROMPTS = {
    "plain": SYSTEM_PROMPT,
    "quote-first": (
        "You answer questions about documents using only the numbered passages given. "
        "First copy, in double quotes, the one sentence of the passages that answers the "
        'question, followed by its passage number in square brackets, for example "..." [1]. '
        "Then answer the question in one sentence. If the passages do not answer the "
        "question, say so."
    ),
}
#: Passage orders: "rank" (best first) or "nearest" (best last, next to the question).
ORDERS = ("rank", "nearest")
QUESTION_MARK = "\n\nQuestion: "
# An answer ends where the model starts inventing the next turn of the exchange.
ANSWER_STOPS = ("\nQuestion:", "\nPassages:")


@dataclass
class Prompt:
    """A rendered prompt: its text, token IDs and their character spans, and where the
    question part (the tail) starts, in characters and in tokens."""

    text: str
    ids: list[int]
    offsets: list[tuple[int, int]]
    tail_char: int
    tail_token: int


#: The system prompt of a model behind a URL: it asks for what lateseg checks afterwards,
#: the value, the sentence that states it copied word for word, and ``[n]`` markers, so
#: the answer phrase and the quote can be found in the passages and the citations checked.
CHECKABLE_PROMPT = (
    "You answer questions about documents using only the numbered passages given. "
    "Reply in exactly this form:\n"
    "Answer: the value that answers the question (a number, date, name or short phrase) "
    "and the passage number in square brackets, for example [1].\n"
    'Quote: "the one sentence of that passage that states it, copied word for word" [1]\n'
    "If the passages do not answer the question, reply only: Not in the passages."
)
