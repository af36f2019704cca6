"""What a question asks for: a duration, an amount, a percentage, a date, a count, a
place or jurisdiction, a party, a list, whether something may or must be done, or
something else; and the words it asks about.

:func:`analyse` reads this from the question's wording alone (rules, no model), so the
extractive answerer can prefer a sentence that states what is asked (an amount for "how
much", the governing law for "which state's law") and cut the answer phrase at it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lateseg.answer.conditions import Condition, condition_words
from lateseg.text.values import Value, find_values, number_word
from lateseg.text.words import STOPWORDS, WORD_PATTERN, stem, words

# "What does 'Confidential Information' mean?", "How is Downtime defined?", "What counts
# as a Security Incident?", "the definition of Affiliate": the term is group 1-4.
_DEFINITION = re.compile(
    r"\bwhat\s+(?:does|do)\s+(?:the\s+(?:term|word|phrase)\s+)?[\"“'‘]?([^\"”?]{2,60}?)[\"”'’]?\s+mean\b"
    r"|\bhow\s+(?:is|are)\s+[\"“'‘]?([^\"”?]{2,60}?)[\"”'’]?\s+defined\b"
    r"|\bwhat\s+counts\s+as\s+(?:an?\s+|the\s+)?[\"“'‘]?([^\"”?]{2,60}?)[\"”'’]?\s*\?"
    r"|\b(?:the\s+)?definition\s+of\s+(?:an?\s+|the\s+)?[\"“'‘]?([^\"”?]{2,60}?)[\"”'’]?\s*(?:\?|$)",
    re.IGNORECASE,
)
# (kind, pattern): the first that matches decides. Kinds and the values that answer them
# are in VALUE_KINDS; "place", "party", "list", "modal" and "other" are answered by text.
_RULES: tuple[tuple[str, str], ...] = (
    ("definition", _DEFINITION.pattern),
    ("address", r"\b(?:what|which)\s+(?:street\s+|mailing\s+|postal\s+)?address\b"),
    (
        "law",
        r"\b(?:whose|which|what)\s+(?:state'?s?|country'?s?|jurisdiction'?s?)\s+laws?\b"
        r"|\bwhat\s+laws?\b|\bgoverning\s+law\b|\blaws?\s+of\s+which\b"
        r"|\bunder\s+(?:which|what)\s+(?:state'?s?\s+)?laws?\b"
        r"|\blaws?\s+(?:govern|appl(?:y|ies))\b|\bgoverned\s+by\s+(?:which|what)\b",
    ),
    (
        "place",
        r"\b(?:which|what)\s+(?:courts?|county|counties|city|venue|forum|state|country|"
        r"directory|directories|folder|path|location|file\s+name)\b|\bwhere\b",
    ),
    (
        "date",
        r"\b(?:on|by|from|until|as\s+of)\s+what\s+date\b|\bwhat\s+(?:date|day|year)\b"
        r"|\bby\s+when\b",
    ),
    (
        "duration",
        r"\bhow\s+(?:long|soon|quickly|fast|far\s+(?:ahead|in\s+advance)|early|late)\b"
        r"|\bhow\s+many\s+(?:\w+\s+)?(?:days|weeks|months|years|hours|minutes)\b"
        r"|\bhow\s+much\s+(?:\w+\s+)?(?:notice|warning|time|advance)\b"
        r"|\b(?:what|which)\s+(?:[\w'’-]+\s+){0,3}(?:period|term|deadline|time\s*limit|notice)\b"
        r"|\bwithin\s+how\b|\bafter\s+how\s+many\b|\bfor\s+how\s+(?:long|many)\b",
    ),
    (
        "distance",
        r"\bhow\s+(?:far|close|near)\b|\b(?:what|which)\s+(?:radius|distance)\b"
        r"|\bwithin\s+what\s+(?:radius|distance)\b",
    ),
    ("when", r"\bwhen\s+(?:must|should|shall|is|are|does|did|do|can|may|will|would|was)\b"),
    ("money", r"\b(?:hourly|daily|monthly|annual)\s+(?:rate|fee|rent)\b|\brate\s+per\s+hour\b"),
    (
        "percent",
        r"\bwhat\s+(?:percentage|percent|share|proportion)\b|\bby\s+how\s+much\b"
        r"|\b(?:availability|uptime)\b"
        r"|\bwhat\s+(?:\w+\s+)?(?:interest|rate|penalty|discount|late\s+(?:fee|charge))\b"
        r"|\bwhat\s+percentage\b",
    ),
    ("count", r"\bhow\s+many\b|\bhow\s+large\b|\bwhat\s+number\s+of\b"),
    ("limit", r"\b(?:cap|caps|capped|limit|limits|ceiling|maximum|minimum|most|least)\b"),
    (
        "money",
        r"\bhow\s+(?:much|big)\b|\bwhat\s+(?:[\w'’-]+\s+){0,5}(?:fee|fees|price|cost|costs|"
        r"rent|amount|sum|deposit|allowance|cap|limit|coverage|charge|salary|budget|"
        r"credit|credits)\b"
        r"|\babove\s+what\b|\bwhat\s+(?:is\s+)?the\s+(?:most|maximum|minimum|least)\b"
        r"|\bcost\b|\bhow\s+high\b",
    ),
    (
        "party",
        r"^\s*(?:who|whom|whose)\b|\bwhich\s+(?:party|parties|person|company|entity)\b"
        r"|\bto\s+whom\b|\bby\s+whom\b",
    ),
    (
        "list",
        r"\b(?:which|what)\s+(?:\w+\s+)?(?:levels|types|kinds|categories|classes|"
        r"priorities|options|values|fields|sections|steps|conditions|items|rights|ways|"
        r"events|exceptions|exclusions|documents|forms|methods|modes|states|formats)\b"
        r"|\blist\s+(?:the|all)\b|\bname\s+the\b",
    ),
    (
        "modal",
        r"^\s*(?:can|could|may|might|must|shall|should|is|are|am|does|do|did|will|"
        r"would|has|have)\b",
    ),
)
_COMPILED = tuple((kind, re.compile(p, re.IGNORECASE)) for kind, p in _RULES)

#: The value kinds (``lateseg.text.values``) that answer each question kind, the
#: preferred first.
VALUE_KINDS: dict[str, tuple[str, ...]] = {
    "duration": ("duration",),
    "when": ("duration", "date", "time"),
    "date": ("date",),
    "percent": ("percent", "money"),
    "money": ("money", "multiple", "percent"),
    "count": ("count", "number"),
    "limit": ("money", "multiple", "percent"),
    "distance": ("count", "number"),
}
# What names the document itself: "the agreement" is in every sentence of one.
DOCUMENT_WORDS = frozenset(
    ["agreement", "contract", "document", "lease", "manual", "license", "licence"]
)
# A number (digits first: "1,000.50" is one token) or a word.
_WORD = re.compile(r"\d[\d,.]*|" + WORD_PATTERN)


@dataclass(frozen=True)
class Asked:
    """What a question asks for: ``kind`` (``"definition"``, ``"duration"``, ``"when"``, ``"date"``,
    ``"percent"``, ``"money"``, ``"count"``, ``"limit"`` (a cap or a minimum: an amount
    or what a limit clause names), ``"distance"``, ``"law"``, ``"place"``, ``"address"``,
    ``"party"``, ``"list"``, ``"modal"`` or ``"other"``), its content ``words``
    (lowercase, stopwords dropped, in order) and the values it ``given`` itself as
    ``(kind, amount)`` ("extend the lease for another five years": a duration of 5),
    which are premises, not answers; and the party that is its ``subject``, when a
    capitalised name or role follows its verb ("must the Client give", "does Corvane
    need"): the answer is what that party may or must do, not another party; and, for a
    ``"definition"`` question ("What does 'Downtime' mean?"), the ``term`` it asks about;
    for a count, the ``head`` noun it counts ("how many named users": ``users``); and the
    ``conditions`` it states ("if the landlord is not in default": ``landlord``, and
    ``default`` negated), which prefer the branch of a clause that states the same; the
    values it has ``stated`` (every value :func:`~lateseg.text.values.find_values` finds in
    it, with offsets and units: the premises a tier's bounds are tested on); and the
    word it ``asks_by``: the first content word after each question word ("which
    sub-processor", "what is the monthly fee": ``monthly``), which may name the column
    asked for; and the fact of ``code`` it asks for, if it is a question about code
    (:func:`code_kind`: ``"exception"``, ``"default"``, ``"env"``, ``"exit_code"``,
    ``"symbol"``; :mod:`lateseg.answer.code` answers it where a passage states one: a
    default or a function only beside a passage of code, the others from docs too).
    All of it is read by :func:`analyse`, once: the steps of an ask read these fields,
    never the question's text again."""

    question: str
    kind: str
    words: tuple[str, ...]
    given: frozenset[tuple[str, float | None]] = frozenset()
    subject: str | None = None
    term: str | None = None
    head: str | None = None
    conditions: tuple[Condition, ...] = ()
    stated: tuple[Value, ...] = ()
    asks_by: tuple[str, ...] = ()
    code: str | None = None
    #: a default asked only in words a contract's question uses too (:func:`weakly_default`)
    weak_code: bool = False

    @property
    def values(self) -> tuple[str, ...]:
        """The value kinds that answer it, the preferred first (empty: it is answered by
        text)."""
        return VALUE_KINDS.get(self.kind, ())

    @property
    def quantity(self) -> bool:
        """Whether the answer is a value (amount, duration, date …)."""
        return bool(self.values)


_ORDINALS = {
    w: str(i)
    for i, w in enumerate(
        [
            "zeroth",
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
        ]
    )
    if w != "first"  # a word: "initial" ("one (1) year" is not the first)
}


def content_words(text: str) -> list[str]:
    """The words of ``text`` that carry content: lowercase, no stopwords, no number
    words; ordinals as their digits ("fifth" and "5th" are "5", as in "Lease Year 5"),
    but "first", which means "initial" and meets "1" through :func:`equivalents`, in
    order."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group(0).lower().replace("’", "'")
        if w.endswith("'s"):
            w = w[:-2]
        w = _ORDINALS.get(w, w)
        if re.fullmatch(r"\d+(?:st|nd|rd|th)", w):
            w = w[:-2]
        if (
            w in STOPWORDS
            or w in DOCUMENT_WORDS
            or number_word(w)
            or (len(w) < 2 and not w.isdigit())
        ):
            continue
        out.append(w)
    return out


# How legal and technical text says what questions say in plain words. A question word
# also matches its equivalents here (both ways), stemmed: "begin" finds "commencement".
_EQUIVALENTS = (
    ("begin", "start", "commence", "commencement", "effective"),
    ("end", "expire", "expiration", "expiry", "terminate", "termination", "cease"),
    ("first", "initial", "original", "1"),
    ("quit", "cancel", "terminate", "termination", "withdraw"),
    ("pay", "payment", "paid", "payable", "remit"),
    ("late", "overdue", "delinquent", "unpaid"),
    ("tell", "inform", "notify", "notice", "notification", "report", "warn", "warning"),
    ("leak", "leaked", "unauthorized", "breach", "disclosure"),
    ("recruit", "hire", "poach", "solicit", "solicitation", "employ", "employment"),
    ("help", "assist", "assistance", "support"),
    ("ask", "request", "demand"),
    ("cost", "price", "fee", "charge", "rate", "rent"),
    ("cap", "limit", "maximum", "exceed", "ceiling"),
    ("minimum", "least", "floor"),
    ("renew", "renewal", "extend", "extension"),
    ("keep", "retain", "maintain", "store", "preserve"),
    ("delete", "destroy", "erase", "remove", "purge"),
    ("sue", "lawsuit", "action", "litigation", "proceeding", "dispute"),
    ("court", "courts", "venue", "jurisdiction", "forum"),
    ("law", "laws", "governing", "governed"),
    ("insurance", "coverage", "insured", "policy"),
    ("confidential", "confidentiality", "secret", "proprietary"),
    ("data", "information"),
    ("user", "users", "seat", "seats"),
    ("building", "premises", "tower"),
    ("allowed", "permitted", "may", "entitled"),
    ("forbidden", "prohibited", "shall not", "must not"),
    ("share", "proportionate", "portion", "percentage"),
    ("respond", "response", "reply"),
    ("fix", "cure", "remedy", "correct"),
    ("waive", "abate", "abatement", "free"),
    ("directory", "folder", "path"),
    ("program", "software", "application", "executable"),
)
_GROUPS: dict[str, frozenset[str]] = {}


def equivalents(word: str) -> frozenset[str]:
    """The stems of ``word`` and of the words that say the same in a contract or manual
    ("recruiting" → recruit, hire, solicit …)."""
    if not _GROUPS:
        for group in _EQUIVALENTS:
            stems = frozenset(stem(w) for w in group)
            for st in stems:
                _GROUPS[st] = _GROUPS.get(st, frozenset()) | stems
    st = stem(word)
    return _GROUPS.get(st, frozenset({st}))


def word_overlaps(words: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Per text, the share of ``words`` (content words: a question's, a claim's) it
    holds, stemmed and with their :func:`equivalents`, each word weighted by its rarity
    among ``texts`` (inverse document frequency): "engineer" in one sentence of twenty
    tells more than "party" in all of them."""
    want = {w: equivalents(w) for w in words}  # each word with its equivalents
    if not want or not texts:
        return np.zeros(len(texts))
    stems = [{stem(w) for w in content_words(t)} for t in texts]
    have = [{w for w, forms in want.items() if forms & s} for s in stems]
    df = {w: sum(w in h for h in have) for w in want}
    idf = {w: np.log((len(texts) + 1) / (df[w] + 0.5)) for w in want}
    total = sum(idf.values())
    return np.array([sum(idf[w] for w in h) / total for h in have])


def analyse(question: str) -> Asked:
    """What ``question`` asks for (see :class:`Asked`)."""
    kind = next((k for k, rx in _COMPILED if rx.search(question)), "other")
    if kind in ("place", "list", "party", "other") and _YES_NO.match(question):
        kind = "modal"  # "Can a program hard-code where …?": yes or no, first
    stated = tuple(v for v in find_values(question) if v.is_value)
    given = frozenset((v.kind, v.amount) for v in stated)
    m = _SUBJECT.search(question)
    subject = m.group(1) if m else None
    d = _DEFINITION.search(question) if kind == "definition" else None
    term = next((g.strip() for g in d.groups() if g), None) if d else None
    conds = tuple(Condition(w, equivalents(w), neg) for w, neg in condition_words(question))
    asks_by = tuple(
        w for m in _ASKING.finditer(question) for w in content_words(question[m.end() :])[:1]
    )
    return Asked(
        question, kind, tuple(content_words(question)), given, subject, term,
        head_noun(question), conds, stated, asks_by, code_kind(question),
        weakly_default(question),
    )  # fmt: skip


_WEAK_DEFAULT = (
    r"\b(?:haven'?t|have\s+not|hasn'?t|didn'?t|did\s+not)\s+(?:configured|set|changed|"
    r"passed|specified|given|chosen)\b|\bthe\s+default\b"
    r"|\bhow\s+(?:many|long|often|old|large|big)\b"
    r"|\b(?:largest|smallest|maximum|minimum|longest|shortest)\b"
)

# (kind, pattern): the first that matches a question decides its code kind ("which
# function turns a status into an exit code" asks for a function, not an exit code).
_CODE_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(p, re.IGNORECASE))
    for kind, p in (
        # "which exception class does pipx raise": an exception, though a class is named
        ("exception", r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}(?:exception|error)\s+class(?:es)?\b"),
        (
            "symbol",
            r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}(?:functions?|methods?|class(?:es)?|enums?|"
            r"decorators?|helpers?|callables?)\b"
            r"|\bis\s+there\s+an?\s+(?:[\w-]+\s+){0,2}(?:function|helper|method|class|decorator)\b"
            r"|\bname\s+of\s+the\s+(?:[\w-]+\s+){0,2}(?:function|method|class|enum|decorator)\b",
        ),
        ("env", r"\benv(?:ironment)?\s+var(?:iable)?s?\b|\benv\s+vars?\b"),
        ("exit_code", r"\bexit\s+(?:codes?|status(?:es)?|values?)\b|\breturn\s+codes?\b"),
        (
            "exception",
            r"\b(?:which|what)\b[^?]{0,40}?\b(?:exceptions?|errors?)\b"
            r"|\b(?:gets?|is|are)\s+(?:raised|thrown)\b"
            r"|\bwhat\s+(?:does|do|will|would|can)\s+[^?]{0,40}?\b(?:raise|throw)\b",
        ),
        (
            "default",
            r"\bdefault\s+(?:value|argument|parameter|setting|format|option|mode|encoding|"
            r"size|port|timeout|is|was|for|of)\b|\bby\s+default\b|\bdefaults\s+to\b"
            r"|\bfalls?\s+back\b|\b(?:if|when|unless)\s+(?:I|you|we)\s+(?:don'?t|"
            r"do\s+not|never)\s+(?:pass|give|specify|set|provide|say|supply|choose|"
            r"configure|change)\b"
            r"|\bunless\s+(?:I|you|we)\s+(?:override|specify|pass|set|change|configure)\b"
            # "if I haven't configured anything", "without any user config", "out of
            # the box" ("without giving -q" is not one: the option's other defaults
            # answered python-dotenv's question about -q wrongly)
            r"|\b(?:if|when)\s+(?:I|you|we)\s+(?:haven'?t|have\s+not|didn'?t|did\s+not)\s+"
            r"(?:configured|set|changed|passed|specified|given|chosen)\b"
            r"|\bwithout\s+(?:any\s+)?(?:user\s+)?(?:config(?:uration)?|settings)\b"
            r"|\bout\s+of\s+the\s+box\b",
        ),
        # read as a default only of a codebase (:data:`WEAK_DEFAULT`): "… and haven't set
        # PIPX_GLOBAL_HOME", "the default maximum complexity", and a quantity the code
        # fixes ("after how many days", "how long … before it times out", "the largest
        # response body"); a contract's "how many days' notice" is no code fact
        ("default", _WEAK_DEFAULT),
    )
)


def weakly_default(question: str) -> bool:
    """Whether ``question`` is a question about a default only by words a question about
    a contract uses as well (a quantity, "the default …", "haven't set"): asked of an
    index that is not mostly code, it is any other question
    (:meth:`~lateseg.ask.answering.Answerer.analysed`)."""
    return code_kind(question) == "default" and not any(
        rx.search(question) for kind, rx in _CODE_KINDS[:-1] if kind == "default"
    )


# A question: it ends with a question mark or opens with a question word ("which
# function parses …"), unlike a description of code such as a docstring ("Return the …")
_QUESTION = re.compile(r"\?\s*$|^\s*(?:what|which|where|when|why|how|who|whose)\b", re.I)


def is_question(text: str) -> bool:
    """Whether ``text`` is worded as a question rather than as a description."""
    return _QUESTION.search(text) is not None


def code_kind(question: str) -> str | None:
    """The code fact ``question`` asks for (:mod:`lateseg.answer.code`), or None."""
    return next((kind for kind, rx in _CODE_KINDS if rx.search(question)), None)


# A question word and what may stand between it and the thing asked for ("which",
# "what is the", "how many")
_ASKING = re.compile(
    r"\b(?:which|what|how\s+many|how\s+much|who|whose)\s+(?:is\s+|are\s+|was\s+)?(?:the\s+)?",
    re.IGNORECASE,
)
# A question that opens with an auxiliary asks yes or no, whatever it asks after it
_YES_NO = re.compile(
    r"^\s*(?:can|could|may|might|must|shall|should|is|are|am|does|do|did|will|would|has|have)\b",
    re.IGNORECASE,
)
# "how many named users", "what number of stores": the words naming what is counted
_COUNTED = re.compile(r"\b(?:how\s+many|what\s+number\s+of|the\s+number\s+of)\s+([^?,;.]+)", re.I)


def head_noun(question: str) -> str | None:
    """What a count question counts: the last word of the (at most three) words after
    "how many" before the first stop word ("how many named users may …" → ``users``);
    None for another question."""
    m = _COUNTED.search(question)
    if m is None:
        return None
    said: list[str] = []
    for w in words(m.group(1)):
        if w in STOPWORDS or len(said) == 3:
            break
        said.append(w)
    return said[-1] if said else None


# "must the Client give", "does Corvane need", "can Provider take": a party after the verb
_SUBJECT = re.compile(
    r"\b(?:must|does|do|did|can|could|may|might|should|shall|will|would|is|has|have)\s+"
    r"(?:the\s+)?((?-i:[A-Z])[a-z]+(?:\s+(?-i:[A-Z])[a-z]+)?)\b(?!\s*\?|['’])",
    re.IGNORECASE,
)
