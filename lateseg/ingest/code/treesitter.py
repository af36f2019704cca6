"""Classes, functions and methods of JS/TS/TSX, Go, Rust, Java, C and C++ via tree-sitter.

Each language is described by a small table of node types (:data:`RULES`): which nodes are
class-like units (classes, structs, interfaces, enums, traits, impl blocks), which are
functions, which only qualify the names inside them (namespaces, Rust ``mod``), which
enclosing nodes a unit's span takes (``export``, ``template <...>``), and which preceding
siblings belong to it (doc comments, Rust ``#[...]`` attributes, TS member decorators).

Units are definitions with a body; declarations without one (C prototypes, interface and
trait method signatures, abstract methods) are covered by their enclosing unit but not
listed alone. tree-sitter reports UTF-8 byte offsets; they are converted to character
offsets into the caller's text (:class:`ByteToChar`). The grammars come from the
``tree-sitter-*`` wheels (compiled in, nothing is downloaded) and are imported on first use.
"""

from __future__ import annotations

import bisect
import importlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from lateseg.types import Span

Node = Any  # tree_sitter.Node; the bindings are imported lazily

_GRAMMARS = {  # language -> (module, function returning the compiled grammar)
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}
LANGUAGES = frozenset(_GRAMMARS)


@dataclass(frozen=True)
class Rules:
    """Node types that make units in one grammar.

    ``nested`` says whether function bodies are searched for further units (JS closures,
    Java anonymous classes, Rust inner items); C, C++ and Go bodies hold none worth
    listing, and skipping them keeps large files fast.
    """

    classes: frozenset[str]
    functions: frozenset[str]
    namespaces: frozenset[str] = frozenset()
    wrappers: frozenset[str] = frozenset()
    leading: frozenset[str] = frozenset({"comment"})
    nested: bool = True


def _f(names: str) -> frozenset[str]:
    return frozenset(names.split())


_JS = Rules(
    classes=_f("class_declaration class"),
    # variable_declarator: `const f = () => ...`, field_definition: class fields; both are
    # kept only when the value is a function
    functions=_f(
        "function_declaration generator_function_declaration method_definition "
        "variable_declarator field_definition"
    ),
    wrappers=_f("export_statement lexical_declaration variable_declaration"),
    leading=_f("comment decorator"),
)
_TS = Rules(
    classes=_JS.classes | _f("abstract_class_declaration interface_declaration enum_declaration"),
    functions=_JS.functions | _f("public_field_definition"),
    namespaces=_f("internal_module module"),
    wrappers=_JS.wrappers | _f("ambient_declaration"),
    leading=_JS.leading,
)
_C_LIKE = _f("struct_specifier union_specifier enum_specifier")
RULES: dict[str, Rules] = {
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": Rules(
        classes=_f("type_spec"),  # kept only for struct and interface types
        functions=_f("function_declaration method_declaration"),
        wrappers=_f("type_declaration"),
        nested=False,
    ),
    "rust": Rules(
        classes=_f("struct_item enum_item union_item trait_item impl_item"),
        functions=_f("function_item"),
        namespaces=_f("mod_item"),
        leading=_f("line_comment block_comment attribute_item"),
    ),
    "java": Rules(
        classes=_f(
            "class_declaration interface_declaration enum_declaration record_declaration "
            "annotation_type_declaration"
        ),
        functions=_f("method_declaration constructor_declaration compact_constructor_declaration"),
        leading=_f("line_comment block_comment"),
    ),
    "c": Rules(
        classes=_C_LIKE,
        functions=_f("function_definition"),
        wrappers=_f("type_definition declaration"),
        nested=False,
    ),
    "cpp": Rules(
        classes=_C_LIKE | _f("class_specifier"),
        functions=_f("function_definition"),
        namespaces=_f("namespace_definition"),
        wrappers=_f("type_definition declaration field_declaration template_declaration"),
        nested=False,
    ),
}

_JS_FUNCTION_VALUES = _f("arrow_function function_expression function generator_function class")
_DECLARATOR_NAMES = _f(
    "identifier field_identifier qualified_identifier destructor_name operator_name"
)
# Node types (by ending) where C, C++ and Go hold no units: not worth walking into.
_NO_UNITS = tuple(
    _f(
        "expression literal identifier declarator parameter_list argument_list "
        "initializer_list enumerator_list comment preproc_def preproc_function_def "
        "preproc_include preproc_call compound_statement block"
    )
)
# C++ syntax that C lacks, to read a C++ header named .h as C++.
_CPP_HINT = re.compile(
    r"^\s*(?:class\s+\w+\s*[:{]|namespace\s*\w*\s*\{|template\s*<|(?:public|private)\s*:)"
    r"|\w::~?\w",
    re.MULTILINE,
)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


@cache
def _language(language: str) -> Any:
    import tree_sitter

    module, func = _GRAMMARS[language]
    return tree_sitter.Language(getattr(importlib.import_module(module), func)())


def parse(data: bytes, language: str) -> Any:
    """The tree-sitter tree of UTF-8 ``data`` (never raises on bad syntax: error nodes)."""
    import tree_sitter

    return tree_sitter.Parser(_language(language)).parse(data)


class ByteToChar:
    """Maps UTF-8 byte offsets of ``text`` (at character boundaries) to character offsets.

    Only non-ASCII characters are recorded, so ASCII files cost nothing; a lookup is a
    bisection over the non-ASCII characters.
    """

    def __init__(self, text: str) -> None:
        self._n = len(text)
        self._ends: list[int] = []  # byte offset just after each non-ASCII character
        self._extra: list[int] = [0]  # bytes beyond one per character, cumulative
        extra = 0
        for m in re.finditer(r"[^\x00-\x7f]", text):
            extra += len(m.group().encode("utf-8", "surrogatepass")) - 1
            self._ends.append(m.end() + extra)
            self._extra.append(extra)

    def __call__(self, byte_offset: int) -> int:
        # min(): a lone surrogate (3 bytes, invalid UTF-8) may be split by the parser
        return min(byte_offset - self._extra[bisect.bisect_right(self._ends, byte_offset)], self._n)


def _text(node: Node) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")


def _type_name(node: Node | None) -> str | None:
    """The bare type name in a receiver or ``impl`` type: ``*Foo[T]``, ``&'a mut Foo<T>``,
    ``fmt::Foo`` -> ``Foo``."""
    if node is None:
        return None
    text = _text(node)
    while True:  # strip generic arguments, innermost first
        stripped = _GENERIC_ARGS.sub("", text)
        if stripped == text:
            break
        text = stripped
    names = _IDENT.findall(text)
    return names[-1] if names else None


def _qualified(node: Node) -> list[str]:
    """Name parts of a C++ declarator name: ``a::X<int>::f`` -> ``["a", "X", "f"]``."""
    if node.type == "qualified_identifier":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        return (_qualified(scope) if scope is not None else []) + (
            _qualified(name) if name is not None else []
        )
    if node.type in ("template_type", "template_function"):
        name = node.child_by_field_name("name")
        return _qualified(name) if name is not None else []
    if node.type == "nested_namespace_specifier":
        return [p for p in _text(node).replace(" ", "").split("::") if p]
    return [_text(node)]


def _declarator_name(node: Node) -> list[str]:
    """Name parts of a C/C++ function definition, through pointer and paren declarators."""
    d = node.child_by_field_name("declarator")
    for _ in range(32):  # declarators nest a few levels; bound the walk on odd input
        if d is None:
            return []
        if d.type in _DECLARATOR_NAMES:
            return _qualified(d)
        d = d.child_by_field_name("declarator") or (d.named_children or [None])[0]
    return []


def unit_name(node: Node, language: str) -> tuple[list[str], str] | None:
    """``(name parts, kind hint)`` for a unit node, or None when it makes no unit.

    The hint is ``class``, ``function`` or ``method`` (always a method: Go receivers,
    C++ ``A::f`` definitions) before the enclosing scope is known.
    """
    t = node.type
    if t == "variable_declarator" or t.endswith("field_definition"):
        value = node.child_by_field_name("value")
        if value is None or value.type not in _JS_FUNCTION_VALUES:
            return None
        name = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name is None or name.type not in ("identifier", "property_identifier"):
            return None
        return [_text(name)], "class" if value.type == "class" else "function"
    if t == "function_definition":
        parts = _declarator_name(node)
        return (parts, "method" if len(parts) > 1 else "function") if parts else None
    if t == "method_declaration" and language == "go":
        receiver = _type_name(node.child_by_field_name("receiver"))
        name = node.child_by_field_name("name")
        if name is None:
            return None
        return ([receiver] if receiver else []) + [_text(name)], "method"
    if t == "type_spec":
        kind = node.child_by_field_name("type")
        if kind is None or kind.type not in ("struct_type", "interface_type"):
            return None
    if t == "impl_item":
        name_text = _type_name(node.child_by_field_name("type"))
        return ([name_text], "class") if name_text else None
    name = node.child_by_field_name("name")
    if name is None and node.parent is not None and node.parent.type == "type_definition":
        alias = _type_name(node.parent.child_by_field_name("declarator"))
        return ([alias], "class") if alias else None  # typedef struct {...} Foo;
    if name is None:
        return None
    rules = RULES[language]
    if t in rules.functions and node.child_by_field_name("body") is None:
        return None  # a declaration without a body
    if t in _C_LIKE | {"class_specifier"} and node.child_by_field_name("body") is None:
        return None  # `struct Foo *p;` mentions a type, does not define it
    parts = _qualified(name) if language == "cpp" else [_text(name)]
    if t in rules.classes:
        return parts, "class"
    return parts, "method" if language == "java" else "function"  # Java has no free functions


def _starts_line(data: bytes, byte: int) -> int | None:
    """Byte offset of the line start when only blanks precede ``byte`` on its line."""
    line_start = data.rfind(b"\n", 0, byte) + 1
    return line_start if not data[line_start:byte].strip() else None


def unit_range(node: Node, data: bytes, rules: Rules) -> tuple[int, int]:
    """Byte range of a unit: the node, widened to a wrapper that holds only it, to the
    attached comments/attributes/decorators just above (no blank line between), and to
    the start of its line when only indentation precedes it."""
    outer = node
    parent = node.parent
    while parent is not None and parent.type in rules.wrappers:
        if sum(1 for c in parent.named_children if c.type == outer.type) != 1:
            break
        outer, parent = parent, parent.parent
    start, row = outer.start_byte, outer.start_point.row
    prev = outer.prev_named_sibling
    while prev is not None and prev.type in rules.leading:
        end_row = prev.end_point.row
        if prev.end_point.column == 0 and end_row > prev.start_point.row:
            end_row -= 1  # line comments that include their newline
        if end_row < row - 1 or _starts_line(data, prev.start_byte) is None:
            break
        start, row = prev.start_byte, prev.start_point.row
        prev = prev.prev_named_sibling
    line_start = _starts_line(data, start)
    return (start if line_start is None else line_start), outer.end_byte


def tree_units(text: str, module: str, language: str) -> list[Span]:
    """Units of ``text`` in ``language`` (one of :data:`LANGUAGES`), labelled
    ``module.Outer.name``; error nodes are searched too, so a file with syntax errors
    still yields the units that parse. C that shows C++ syntax (a ``.h`` header) is read
    as C++."""
    data = text.encode("utf-8", "surrogatepass")
    if language == "c" and _CPP_HINT.search(text):
        language = "cpp"  # a C++ header named .h
    tree = parse(data, language)
    rules = RULES[language]
    to_char = ByteToChar(text)
    spans: list[Span] = []
    # (node, qualified-name prefix, kind of the innermost enclosing unit)
    stack: list[tuple[Node, tuple[str, ...], str | None]] = [(tree.root_node, (), None)]
    while stack:
        node, prefix, container = stack.pop()
        for child in node.named_children:
            t = child.type
            unit = None
            if t in rules.classes or t in rules.functions:
                unit = unit_name(child, language)
            if unit is not None:
                parts, kind = unit
                if kind == "function" and container == "class":
                    kind = "method"
                qual = (*prefix, *parts)
                start, end = unit_range(child, data, rules)
                label = ".".join(p for p in (module, *qual) if p)
                spans.append(Span(to_char(start), to_char(end), kind, label))
                if kind == "class" or rules.nested:
                    stack.append((child, qual, "class" if kind == "class" else "function"))
            elif t in rules.namespaces:
                name = child.child_by_field_name("name")
                parts = _qualified(name) if name is not None else []
                extra = tuple(p.strip("\"'") for p in parts)  # TS: declare module "x"
                stack.append((child, (*prefix, *extra), container))
            elif rules.nested or not t.endswith(_NO_UNITS):
                stack.append((child, prefix, container))
    return spans
