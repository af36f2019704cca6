"""Code units (qualified names, exact character spans) in every supported language, and the
repository walking rules of RepoFilter. Real parsers and real files, no mocks."""

from __future__ import annotations

import ast
import os
import sysconfig
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lateseg.ingest.code.treesitter import LANGUAGES, ByteToChar
from lateseg.ingest.code.units import code_units
from lateseg.ingest.formats import CODE_SUFFIXES
from lateseg.ingest.repo import RepoFilter

ROOT = Path(__file__).resolve().parent.parent


def units(text: str, language: str) -> list[tuple[str, str, str]]:
    """(kind, label, text) of every unit but the module, in document order."""
    spans = code_units(text, "m", language)
    assert spans[0].kind == "module" and (spans[0].start, spans[0].end) == (0, len(text))
    assert spans[0].label == "m"
    return [(s.kind, s.label, text[s.start : s.end]) for s in spans[1:]]


PYTHON = '''greeting = "héllo wörld 𝄞 ✓"


@decorator(
    "ünïcode",
)
def top(a):
    def inner():
        pass
    return a


class Invoice(Base):
    """A bill."""

    async def total(self):
        return 1

    class Line:
        pass

if True:
    def conditional():
        pass
'''


def test_python_units_have_qualified_names_and_exact_spans():
    assert units(PYTHON, "python") == [
        ("function", "m.top", '@decorator(\n    "ünïcode",\n)\ndef top(a):\n'
         "    def inner():\n        pass\n    return a"),
        ("function", "m.top.inner", "    def inner():\n        pass"),
        ("class", "m.Invoice", 'class Invoice(Base):\n    """A bill."""\n\n'
         "    async def total(self):\n        return 1\n\n    class Line:\n        pass"),
        ("method", "m.Invoice.total", "    async def total(self):\n        return 1"),
        ("class", "m.Invoice.Line", "    class Line:\n        pass"),
        ("function", "m.conditional", "    def conditional():\n        pass"),
    ]  # fmt: skip


def test_python_with_crlf_and_lone_cr_line_ends():
    text = "x = 'é'\r\ndef a():\r\n    pass\r\rdef b():\r    pass\r"
    assert units(text, "python") == [
        ("function", "m.a", "def a():\r\n    pass"),
        ("function", "m.b", "def b():\r    pass"),
    ]


def test_broken_python_keeps_the_module_and_the_units_that_parse():
    text = (
        "import x\n\n@dec\ndef good(a):\n    return a\n\ndef broken(:\n    pass\n\n"
        "class K:\n    def m(self):\n        pass\nprint 'py2'\n"
    )
    assert units(text, "python") == [
        ("function", "m.good", "@dec\ndef good(a):\n    return a"),
        ("class", "m.K", "class K:\n    def m(self):\n        pass"),
        ("method", "m.K.m", "    def m(self):\n        pass"),
    ]


JS = """const greeting = "héllo wörld 𝄞 ✓";

/** Adds two numbers. */
export function add(a, b) {
  return a + b;
}

class Counter extends Base {
  #count = 0;
  increment() {
    this.#count += 1;
  }
  static create = () => new Counter();
}

const double = (x) => x * 2;
"""

TS = """const note = "Ünïcödé — 日本語";

namespace Billing {
  export interface Invoice {
    total(): number;
  }
  export enum Status { Open, Paid }
}

@Injectable()
export abstract class Repo<T> {
  @Log()
  find(id: string): T | undefined {
    return undefined;
  }
  abstract save(item: T): void;
}
"""

TSX = """const label: string = "naïve café";

interface Props {
  name: string;
}

export const Hello = ({ name }: Props) => <div className="x">{name}</div>;

export default class App extends React.Component<Props> {
  render() {
    return <Hello name="wörld" />;
  }
}
"""

GO = """package billing

var greeting = "héllo 𝄞"

// Invoice is a bill.
type Invoice struct {
\tTotal int
}

type Payer interface {
\tPay(amount int) error
}

// Add adds a line.
func (inv *Invoice) Add(amount int) {
\tinv.Total += amount
}

func New() *Invoice {
\treturn &Invoice{}
}
"""

RUST = """const GREETING: &str = "héllo 𝄞";

/// A bill.
#[derive(Debug, Default)]
pub struct Invoice {
    total: u64,
}

impl Invoice {
    pub fn add(&mut self, amount: u64) {
        self.total += amount;
    }
}

impl std::fmt::Display for Invoice {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.total)
    }
}

pub trait Payer {
    fn pay(&self) -> bool;
    fn ready(&self) -> bool {
        true
    }
}

mod tests {
    fn helper() {}
}
"""

JAVA = """package billing;

/** A bill — "façade". */
public class Invoice {
    private long total;

    public Invoice() {}

    @Override
    public String toString() {
        return "total=" + total;
    }

    enum Status { OPEN, PAID }

    interface Payer {
        boolean pay();
    }
}
"""

C = """#include <stdio.h>

static const char *greeting = "héllo 𝄞";

typedef struct {
    int total;
} Invoice;

struct node {
    struct node *next;
};

int add(Invoice *inv, int amount);

/* Adds an amount. */
int add(Invoice *inv, int amount) {
    inv->total += amount;
    return inv->total;
}
"""

CPP = """#include <string>

static const char* kGreeting = "héllo 𝄞";

namespace billing {

class Invoice {
 public:
  Invoice();
  int total() const { return total_; }

 private:
  int total_ = 0;
};

template <typename T>
T twice(T x) {
  return x + x;
}

}  // namespace billing

billing::Invoice::Invoice() : total_(0) {}

namespace ns {
int Class::method(int x) { return x; }
}
"""


def _block(text: str, first: str, last: str) -> str:
    """The text from the line holding ``first`` (indentation included) through ``last``."""
    i = text.index(first)
    i = text.rfind("\n", 0, i) + 1
    return text[i : text.index(last, i) + len(last)]


CASES = {
    "javascript": (
        JS,
        [
            ("function", "m.add", _block(JS, "/** Adds", "a + b;\n}")),
            ("class", "m.Counter", _block(JS, "class Counter", "new Counter();\n}")),
            ("method", "m.Counter.increment", _block(JS, "increment()", "+= 1;\n  }")),
            ("method", "m.Counter.create", _block(JS, "static create", "new Counter()")),
            ("function", "m.double", "const double = (x) => x * 2;"),
        ],
    ),
    "typescript": (
        TS,
        [
            ("class", "m.Billing.Invoice", _block(TS, "export interface", "number;\n  }")),
            ("class", "m.Billing.Status", "  export enum Status { Open, Paid }"),
            ("class", "m.Repo", _block(TS, "@Injectable", "void;\n}")),
            ("method", "m.Repo.find", _block(TS, "@Log()", "undefined;\n  }")),
        ],
    ),
    "tsx": (
        TSX,
        [
            ("class", "m.Props", "interface Props {\n  name: string;\n}"),
            ("function", "m.Hello", _block(TSX, "export const Hello", "</div>;")),
            ("class", "m.App", _block(TSX, "export default", "/>;\n  }\n}")),
            ("method", "m.App.render", _block(TSX, "render()", "/>;\n  }")),
        ],
    ),
    "go": (
        GO,
        [
            ("class", "m.Invoice", _block(GO, "// Invoice is", "int\n}")),
            ("class", "m.Payer", _block(GO, "type Payer", "error\n}")),
            ("method", "m.Invoice.Add", _block(GO, "// Add adds", "amount\n}")),
            ("function", "m.New", _block(GO, "func New", "{}\n}")),
        ],
    ),
    "rust": (
        RUST,
        [
            ("class", "m.Invoice", _block(RUST, "/// A bill", "u64,\n}")),
            ("class", "m.Invoice", _block(RUST, "impl Invoice", "amount;\n    }\n}")),
            ("method", "m.Invoice.add", _block(RUST, "pub fn add", "amount;\n    }")),
            ("class", "m.Invoice", _block(RUST, "impl std::fmt", "total)\n    }\n}")),
            ("method", "m.Invoice.fmt", _block(RUST, "fn fmt", "total)\n    }")),
            ("class", "m.Payer", _block(RUST, "pub trait", "true\n    }\n}")),
            ("method", "m.Payer.ready", _block(RUST, "fn ready", "true\n    }")),
            ("function", "m.tests.helper", "    fn helper() {}"),
        ],
    ),
    "java": (
        JAVA,
        [
            ("class", "m.Invoice", JAVA[JAVA.index("/**") : JAVA.rindex("}") + 1]),
            ("method", "m.Invoice.Invoice", "    public Invoice() {}"),
            ("method", "m.Invoice.toString", _block(JAVA, "@Override", "total;\n    }")),
            ("class", "m.Invoice.Status", "    enum Status { OPEN, PAID }"),
            ("class", "m.Invoice.Payer", _block(JAVA, "interface Payer", "pay();\n    }")),
        ],
    ),
    "c": (
        C,
        [
            ("class", "m.Invoice", _block(C, "typedef struct", "} Invoice;")),
            ("class", "m.node", _block(C, "struct node {", "*next;\n}")),
            ("function", "m.add", _block(C, "/* Adds", "inv->total;\n}")),
        ],
    ),
    "cpp": (
        CPP,
        [
            ("class", "m.billing.Invoice", _block(CPP, "class Invoice", "= 0;\n}")),
            ("method", "m.billing.Invoice.total", _block(CPP, "int total()", "total_; }")),
            ("function", "m.billing.twice", _block(CPP, "template <", "x + x;\n}")),
            ("method", "m.billing.Invoice.Invoice", _block(CPP, "billing::", "(0) {}")),
            ("method", "m.ns.Class.method", "int Class::method(int x) { return x; }"),
        ],
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_tree_sitter_units_have_qualified_names_and_exact_char_spans(language):
    text, expected = CASES[language]
    # Every snippet has non-ASCII text before its first unit: byte offsets would be off.
    assert len(text.encode("utf-8")) > len(text)
    assert units(text, language) == expected


def test_every_suffix_maps_to_a_language_and_tsx_has_its_own_grammar():
    assert CODE_SUFFIXES[".tsx"] == "tsx"
    parsed = {CODE_SUFFIXES[s] for s in (".js", ".ts", ".tsx", ".go", ".rs", ".java", ".c")}
    assert parsed | {"cpp"} == set(LANGUAGES)
    assert units("x = 1", "ruby") == []  # no parser: the module span only


def test_a_cpp_header_with_the_c_suffix_is_read_as_cpp():
    text = "class K {\n public:\n  int m() { return 1; }\n};\n"
    assert [(k, label) for k, label, _ in units(text, "c")] == [
        ("class", "m.K"),
        ("method", "m.K.m"),
    ]


@pytest.mark.parametrize(
    ("language", "text", "labels"),
    [
        ("javascript", "function ok() {}\nfunction bad( {\n}}}\nclass Fine { m() {} }\n",
         ["m.ok", "m.Fine", "m.Fine.m"]),
        ("c", "int ok(void) { return 1; }\nint bad(void { return 1;\nint after(void) {}\n",
         ["m.ok", "m.after"]),
        ("java", "class A { void m() {} void bad( { }\n", ["m.A", "m.A.m"]),
        ("rust", "fn ok() {}\nfn bad( {\n", ["m.ok"]),
    ],
)  # fmt: skip
def test_syntax_errors_keep_the_module_and_the_units_that_parse(language, text, labels):
    got = [label for _, label, _ in units(text, language)]
    assert [label for label in labels if label in got] == labels


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_byte_offsets_map_to_char_offsets(text):
    to_char = ByteToChar(text)
    for i in range(len(text) + 1):
        assert to_char(len(text[:i].encode("utf-8"))) == i


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}()<>;:=,.\"'/*#@\n\t aZé𝄞\ud800 def class fn"))))
def test_code_units_never_raise_and_stay_in_range(text):
    for language in ["python", *sorted(LANGUAGES)]:
        for s in code_units(text, "m", language):
            assert 0 <= s.start <= s.end <= len(text)


def _stdlib_files() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(stdlib.glob("*.py"))


@pytest.mark.slow
def test_python_units_match_ast_on_the_standard_library():
    """Every def/class found by ast.walk has a span with its name that starts at its
    first decorator (or def/class) line and ends on its last line."""
    files = _stdlib_files()
    assert len(files) > 100
    total = 0
    for path in files:
        text = path.read_bytes().decode("utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a few stdlib files are deliberately broken (lib2to3 data)
            continue
        want = Counter(
            (n.name, min([n.lineno] + [d.lineno for d in n.decorator_list]), n.end_lineno)
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
        got = Counter()
        for s in code_units(text, path.stem, "python")[1:]:
            assert s.label.startswith(path.stem + "."), s
            first_line = text.count("\n", 0, s.start) + 1
            body = text[s.start : s.end].lstrip()
            assert body.startswith(("def ", "async def ", "class ", "@")), (path, s)
            got[(s.label.rsplit(".", 1)[-1], first_line, text.count("\n", 0, s.end) + 1)] += 1
        assert got == want, path
        total += sum(want.values())
    assert total > 5000


# --- RepoFilter -------------------------------------------------------------------------


def _write(root: Path, rel: str, data: str | bytes = "x = 1\n") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data, "utf-8")


def _walk(root: Path, flt: RepoFilter) -> dict[str, str | None]:
    """Every file below ``root`` (pruned folders' contents included) -> its reason."""
    out: dict[str, str | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in list(dirnames):
            reason = flt.skip_dir(Path(dirpath) / d)
            if reason:
                dirnames.remove(d)
                out[Path(dirpath, d).relative_to(root).as_posix() + "/"] = reason
        for name in filenames:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = flt.skip_file(p)
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    _write(r, ".gitignore", "*.log\n!keep.log\nbuild_out/\nsecret.txt\n")
    _write(r, ".git/HEAD", "ref: refs/heads/main\n")
    _write(r, ".git/info/exclude", "excluded.md\n")
    for rel in ["app.py", "keep.log", "debug.log", "secret.txt", "excluded.md", "build_out/x.py"]:
        _write(r, rel)
    _write(r, "sub/.gitignore", "*.tmp\n!important.log\n/local.py\n")
    for rel in ["sub/a.tmp", "sub/important.log", "sub/other.log", "sub/local.py"]:
        _write(r, rel)
    _write(r, "sub/deeper/local.py")
    _write(r, "node_modules/pkg/index.js", "module.exports = 1;\n")
    _write(r, "env/pyvenv.cfg", "home = /usr/bin\n")
    _write(r, "env/lib/site.py")
    _write(r, "venv/__init__.py")  # a package named venv is source, not a virtualenv
    _write(r, "__pycache__/app.cpython-311.pyc", b"\x00\x01")
    _write(r, "build/lib/app.py")
    _write(r, "src/build/__init__.py")
    _write(r, "vendor/lib.go", "package lib\n")
    _write(r, "external/libfoo/LICENSE", "MIT\n")
    _write(r, "external/libfoo/foo.c", "int foo(void) { return 1; }\n")
    _write(r, "deps/mine.py")
    _write(r, "static/app.min.js", "var a=1;\n")
    _write(r, "static/bundle.js", "var a=1;" * 1000)
    _write(r, "README.md", ("A long paragraph on one line. " * 40 + "\n\n") * 5)
    _write(r, "gen.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage x\n")
    _write(r, "schema.py", "# @generated by the schema tool\nX = 1\n")
    _write(r, "notes.py", '"""Mentions DO NOT EDIT and @generated in a docstring."""\n')
    for lock in ["package-lock.json", "yarn.lock", "poetry.lock", "Cargo.lock"]:
        _write(r, lock, "{}\n")
    _write(r, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    _write(r, "big.txt", "word " * 600)
    _write(r, "utf16.txt", "Rent is payable monthly.".encode("utf-16"))  # NULs, yet text
    _write(r, "contract.pdf", b"%PDF-1.7\n\x00" + b"x" * 5000)
    return r


def test_repo_filter_reasons(repo):
    got = _walk(repo, RepoFilter(repo, max_bytes=2000))
    assert got == {
        ".gitignore": None,
        "app.py": None,
        "keep.log": None,
        "debug.log": "gitignored",
        "secret.txt": "gitignored",
        "excluded.md": "gitignored",
        "build_out/": "gitignored",
        "sub/.gitignore": None,
        "sub/a.tmp": "gitignored",
        "sub/important.log": None,  # nested negation beats the root's *.log
        "sub/other.log": "gitignored",
        "sub/local.py": "gitignored",  # anchored to sub/ ...
        "sub/deeper/local.py": None,  # ... so not below it
        ".git/": "vcs",
        "node_modules/": "node_modules",
        "env/": "virtualenv",
        "venv/__init__.py": None,
        "__pycache__/": "cache",
        "build/": "build output",
        "src/build/__init__.py": None,
        "vendor/": "vendored",
        "external/": "vendored",
        "deps/mine.py": None,
        "static/app.min.js": "minified",
        "static/bundle.js": "too large (8000 bytes > 2000)",
        "README.md": "too large (6010 bytes > 2000)",
        "gen.go": "generated",
        "schema.py": "generated",
        "notes.py": None,
        "package-lock.json": "generated (lockfile)",
        "yarn.lock": "generated (lockfile)",
        "poetry.lock": "generated (lockfile)",
        "Cargo.lock": "generated (lockfile)",
        "image.png": "binary",
        "big.txt": "too large (3000 bytes > 2000)",
        "utf16.txt": None,
        "contract.pdf": None,  # extracted, not read as text: no binary or size rule
    }


def test_repo_filter_switches_and_content_rules(repo):
    loose = _walk(repo, RepoFilter(repo, skip_vendored=False, honour_gitignore=False))
    assert loose["vendor/lib.go"] is None and loose["external/libfoo/foo.c"] is None
    assert loose["debug.log"] is None and loose["build_out/x.py"] is None
    assert loose["static/bundle.js"] == "minified"  # one 8000-character line
    assert loose["README.md"] is None  # prose may hold a paragraph per line
    assert loose["node_modules/"] == "node_modules"  # always
    raw = _walk(repo, RepoFilter(repo, skip_generated=False))
    assert raw["Cargo.lock"] is None and raw["gen.go"] is None and raw["static/app.min.js"] is None
    assert raw["image.png"] == "binary"


def test_repo_filter_checks_folders_for_a_file_named_directly(repo):
    flt = RepoFilter(repo)
    assert flt.skip_file(repo / "node_modules" / "pkg" / "index.js") == "node_modules"
    assert flt.skip_file(repo / "build_out" / "x.py") == "gitignored"
    assert flt.skip_dir(repo) is None  # the root is never skipped
    assert RepoFilter(repo / "node_modules").skip_file(repo / "node_modules/pkg/index.js") is None


def test_repo_filter_keeps_this_projects_own_sources():
    flt = RepoFilter(ROOT)
    files = sorted((ROOT / "lateseg").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))
    assert files
    assert {str(p): flt.skip_file(p) for p in files} == {str(p): None for p in files}
