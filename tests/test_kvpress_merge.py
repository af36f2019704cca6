"""bench/kvpress_compare.py --merge: one table of runs made in parts (issue 64), from the
committed runs' own .json; runs that overlap or differ are refused."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
pytest.importorskip("torch")
from bench import kvpress_compare as kc

RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results"
PARTS = [RESULTS / "kvpress_compare.json", RESULTS / "kvpress_compare_qa.json"]


def _runs() -> list[dict]:
    return [json.loads(p.read_text()) for p in PARTS]


def test_a_merge_holds_every_run_s_rows_and_names_each_run():
    runs = _runs()
    report = kc.merged(runs, PARTS)
    assert len(report["rows"]) == sum(len(r["rows"]) for r in runs)
    assert {r["case"] for r in report["rows"]} == {r["case"] for run in runs for r in run["rows"]}
    assert all(run["command"] in report["coverage"] for run in runs)
    assert all(run.get("coverage", "") in report["coverage"] for run in runs)
    assert report["minutes"] == pytest.approx(sum(r["minutes"] for r in runs))
    text = kc.markdown(copy.deepcopy(report))
    # the QA task of the second run and a contract of the first, in one table
    assert "### qa at 8192 tokens" in text and "contract QA (whole contract)" in text


def test_a_merge_refuses_runs_that_overlap_or_differ(tmp_path):
    runs = _runs()
    with pytest.raises(SystemExit, match="is in both"):
        kc.merged([runs[0], runs[0]], [PARTS[0], tmp_path / "again.json"])
    other = copy.deepcopy(runs[1])
    other["versions"]["transformers"] = "9.9.9"
    with pytest.raises(SystemExit, match="versions"):
        kc.merged([runs[0], other], PARTS)
    for key, change in (
        ("ratios", lambda r: r["args"].update(ratios=[0.5])),
        ("machine", lambda r: r.update(machine="elsewhere")),
        ("max_new_tokens", lambda r: r["args"].update(max_new_tokens=99)),
    ):
        other = copy.deepcopy(runs[1])
        change(other)
        with pytest.raises(SystemExit, match=key):
            kc.merged([runs[0], other], PARTS)


def test_a_merge_never_writes_over_a_run_it_merges(tmp_path, capsys):
    with pytest.raises(SystemExit):
        kc.main(["--merge", *map(str, PARTS)])  # the default --out is the first run's
    assert "--out of its own" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        kc.main(["--merge", *map(str, PARTS), "--out", str(PARTS[0].with_suffix(".md"))])
    out = tmp_path / "all.md"
    assert kc.main(["--merge", *map(str, PARTS), "--out", str(out)]) == 0
    merged = json.loads(out.with_suffix(".json").read_text())
    assert merged["args"]["lengths"] == [4096, 8192] and "qa" in merged["args"]["tasks"]
    assert "its own note" in merged["coverage"]  # the first run's caveats carried


GROUPED = RESULTS / "kvpress_compare_contracts_grouped.json"


def test_a_later_run_of_some_presses_replaces_their_rows_where_it_ran():
    """The contracts again after the grouping fix: lateseg's rows there come from the
    later run, every other row (and every row elsewhere) stays, and the note counts the
    answers that changed (only lateseg's press's: the others ran the same code)."""
    base = kc.merged(_runs(), PARTS)
    kc.kvzip_net(base["rows"])  # as replaced() leaves them: KVzip net of its own run's presses
    later = json.loads(GROUPED.read_text())
    later["rows"] = [r for r in later["rows"] if r["press"] in ("full cache", "lateseg lateseg")]
    report = kc.replaced(copy.deepcopy(base), later, GROUPED)
    assert len(report["rows"]) == len(base["rows"])
    contracts = {r["case"] for r in later["rows"]}
    mine = [r for r in report["rows"] if r["press"] == "lateseg lateseg" and r["case"] in contracts]
    fresh = [r for r in later["rows"] if r["press"] == "lateseg lateseg"]
    assert sorted(map(json.dumps, mine)) == sorted(map(json.dumps, fresh))
    kept = [
        r
        for r in report["rows"]
        if not (r["press"] == "lateseg lateseg" and r["case"] in contracts)
    ]
    rest = [
        r for r in base["rows"] if not (r["press"] == "lateseg lateseg" and r["case"] in contracts)
    ]
    assert kept == rest
    changed = sum(
        a["answer"].strip() != b["answer"].strip()
        for a in fresh
        for b in base["rows"]
        if b["press"] == a["press"]
        and (b["setting"], b["case"], b["question"], b["ratio"])
        == (a["setting"], a["case"], a["question"], a["ratio"])
    )
    assert changed > 0 and f"lateseg lateseg: {changed} of {len(fresh)}" in report["coverage"]
    assert later["command"] in report["coverage"] and "--replace" in report["command"]

    # KVzip's time stays net of the other presses' time in its own run, not the later run's
    unnetted = kc.merged(_runs(), PARTS)
    again = kc.replaced(copy.deepcopy(unnetted), later, GROUPED)
    kc.kvzip_net(again["rows"])
    kvzip = [r["compress_ms"] for r in again["rows"] if r["press"] == "kvpress KVzip"]
    assert kvzip == [r["compress_ms"] for r in base["rows"] if r["press"] == "kvpress KVzip"]


def test_a_replacement_is_refused_when_its_full_cache_answers_otherwise(tmp_path, capsys):
    base = kc.merged(_runs(), PARTS)
    later = json.loads(GROUPED.read_text())
    other = copy.deepcopy(later)
    next(r for r in other["rows"] if r["press"] == "full cache")["answer"] = " something else"
    with pytest.raises(SystemExit, match="not the same prompts"):
        kc.replaced(copy.deepcopy(base), other, GROUPED)
    other = copy.deepcopy(later)  # another machine, the same answers: taken, and said
    other["machine"] = "elsewhere"
    assert (
        "another machine (elsewhere)"
        in kc.replaced(copy.deepcopy(base), other, GROUPED)["coverage"]
    )
    other = copy.deepcopy(later)
    other["args"]["ratios"] = [0.5]
    with pytest.raises(SystemExit, match="ratios"):
        kc.replaced(copy.deepcopy(base), other, GROUPED)
    other = copy.deepcopy(later)  # a press that answered fewer questions than it replaces
    drop = next(r for r in other["rows"] if r["press"] == "lateseg lateseg")
    other["rows"].remove(drop)
    with pytest.raises(SystemExit, match="other questions"):
        kc.replaced(copy.deepcopy(base), other, GROUPED)
    with pytest.raises(SystemExit):
        kc.main(["--replace", str(GROUPED), "--out", str(tmp_path / "x.md")])  # no --merge
    assert "--replace goes with --merge" in capsys.readouterr().err


def test_the_presses_are_compared_question_by_question_with_a_sign_test():
    assert kc.sign_p(0, 0) == 1.0 and kc.sign_p(3, 3) == 1.0
    assert kc.sign_p(6, 2) == pytest.approx(2 * (1 + 8 + 28) / 256)
    assert kc.sign_p(10, 0) == kc.sign_p(0, 10) == pytest.approx(2 / 1024)
    rows = json.loads(GROUPED.read_text())["rows"]
    assert kc.paired(rows, "lateseg lateseg", "kvpress nothing", [0.9], ["agnostic"]) == []
    lines = kc.paired(rows, "lateseg lateseg", "kvpress ChunkKV", [0.9], ["agnostic"])
    (row,) = [x for x in lines if x.startswith("| agnostic |")]  # contracts only: no 'every task'
    full = {
        (r["case"], r["question"]): r["answer"]
        for r in rows
        if r["press"] == "full cache" and r["setting"] == "agnostic"
    }

    def same(press):
        return {
            (r["case"], r["question"]): r["answer"].strip()
            == full[(r["case"], r["question"])].strip()
            for r in rows
            if r["press"] == press and r["ratio"] == 0.9 and r["setting"] == "agnostic"
        }

    mine, theirs = same("lateseg lateseg"), same("kvpress ChunkKV")
    only = (
        sum(mine[k] and not theirs[k] for k in mine),
        sum(theirs[k] and not mine[k] for k in mine),
    )
    assert f"| {only[0]} / {only[1]} ({kc.sign_p(*only):.2f}) |" in row and sum(only) > 0
