"""Which OCR engine: Tesseract 5.3 (CLI) against RapidOCR (ONNX Runtime) on the sample
contracts rendered at 200 dpi grey, clean and degraded (turned 1.5 degrees, grey noise).

    pip install rapidocr-onnxruntime==1.4.4   # not a lateseg dependency: only this bench
    python bench/ocr_engines.py [stage ...]   # raster serial parallel rotation report env

Work files (page images, OCR text and timings, results.json) go to ``$OCR_ENGINES_DIR``
(default ``/tmp/ocr_engines``); ``bench/results/ocr_engines.md`` is written from its
results by hand. Measures, per engine and variant: CER (whitespace collapsed, and
ignoring whitespace), numbers read exactly, whole reference words found, seconds a page
one at a time and pages/s two at once; and what each makes of pages turned 90 and 180
degrees. Why lateseg reads scans with Tesseract: ``bench/results/ocr_engines.md``.
"""

import glob
import json
import multiprocessing as mp
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pymupdf
from PIL import Image
from rapidfuzz.distance import Levenshtein

ROOT = os.environ.get("OCR_ENGINES_DIR", "/tmp/ocr_engines")
PDF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "contracts")
PAGES = os.path.join(ROOT, "pages")
CACHE = os.path.join(ROOT, "ocr_cache.json")
RESULTS = os.path.join(ROOT, "results.json")
VARIANTS = ["clean", "degraded"]
ENGINES = ["tesseract", "rapidocr"]

NUM_RE = re.compile(r"[$€£]?\d[\d,.:/%-]*")
WS_RE = re.compile(r"\s+")


def load_json(p, default):
    if os.path.exists(p):
        with open(p) as f:
            return json.load(f)
    return default


def save_json(p, obj):
    tmp = p + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
    os.replace(tmp, p)


# ---------------------------------------------------------------- rasterise
def stage_raster():
    os.makedirs(PAGES, exist_ok=True)
    rng = np.random.default_rng(12345)
    refs = {}
    for pdf in sorted(glob.glob(os.path.join(PDF_DIR, "*.pdf"))):
        name = os.path.splitext(os.path.basename(pdf))[0]
        doc = pymupdf.open(pdf)
        for i, page in enumerate(doc):
            pid = f"{name}_p{i + 1:02d}"
            refs[pid] = page.get_text()
            pix = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
            clean = os.path.join(PAGES, f"{pid}_clean.png")
            pix.save(clean)
            im = Image.open(clean).convert("L")
            rot = im.rotate(1.5, resample=Image.BICUBIC, expand=False, fillcolor=255)
            a = np.asarray(rot, dtype=np.float32)
            a = a + rng.normal(0.0, 8.0, a.shape)
            Image.fromarray(np.clip(np.rint(a), 0, 255).astype(np.uint8), "L").save(
                os.path.join(PAGES, f"{pid}_degraded.png")
            )
    save_json(os.path.join(ROOT, "reference.json"), refs)
    print(f"rasterised {len(refs)} pages")


def page_ids():
    return list(load_json(os.path.join(ROOT, "reference.json"), {}).keys())


# ---------------------------------------------------------------- engines
def tesseract_text(path, psm=3):
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    t0 = time.perf_counter()
    out = subprocess.run(
        ["tesseract", path, "stdout", "-l", "eng", "--psm", str(psm), "tsv"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    dt = time.perf_counter() - t0
    lines = {}
    order = []
    for row in out.splitlines()[1:]:
        c = row.split("\t")
        if len(c) < 12 or c[0] != "5":
            continue
        txt = c[11].strip()
        if not txt:
            continue
        key = (int(c[1]), int(c[2]), int(c[3]), int(c[4]))  # page, block, par, line
        if key not in lines:
            lines[key] = []
            order.append(key)
        lines[key].append(txt)
    return "\n".join(" ".join(lines[k]) for k in order), dt


_ENGINE = None


def rapid_engine(threads=-1):
    from rapidocr_onnxruntime import RapidOCR

    if threads == -1:
        return RapidOCR()
    return RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)


def rapid_text(engine, path):
    t0 = time.perf_counter()
    result, elapse = engine(path)
    dt = time.perf_counter() - t0
    result = result or []
    # sort top-to-bottom (min y of box), then left-to-right
    result = sorted(result, key=lambda r: (min(p[1] for p in r[0]), min(p[0] for p in r[0])))
    return "\n".join(r[1] for r in result), dt, elapse


# ---------------------------------------------------------------- serial
def stage_serial():
    cache = load_json(CACHE, {})
    pids = page_ids()
    eng = rapid_engine()
    rapid_text(eng, os.path.join(PAGES, f"{pids[0]}_clean.png"))  # warm-up (not recorded)
    for variant in VARIANTS:
        for pid in pids:
            path = os.path.join(PAGES, f"{pid}_{variant}.png")
            k = f"{variant}/{pid}"
            ent = cache.setdefault(k, {})
            if "tesseract" not in ent:
                txt, dt = tesseract_text(path)
                ent["tesseract"] = {"text": txt, "sec": dt}
            if "rapidocr" not in ent:
                txt, dt, el = rapid_text(eng, path)
                ent["rapidocr"] = {"text": txt, "sec": dt, "elapse": el}
            print(
                f"{k}: tess {ent['tesseract']['sec']:.2f}s rapid {ent['rapidocr']['sec']:.2f}s",
                flush=True,
            )
            save_json(CACHE, cache)


# ------------------------------------------------- parallel (2 workers, shared queue)
def _worker(engine_name, threads, q, barrier, res):
    eng = None
    if engine_name == "rapidocr":
        eng = rapid_engine(threads)
        rapid_text(eng, q_peek_path)  # warm-up before the clock starts
    barrier.wait()
    t0 = time.time()
    n = 0
    while True:
        try:
            path = q.get_nowait()
        except Exception:
            break
        if engine_name == "tesseract":
            tesseract_text(path)
        else:
            rapid_text(eng, path)
        n += 1
    res.put((t0, time.time(), n))


q_peek_path = None


def run_parallel(engine_name, variant, threads=1, nproc=2):
    global q_peek_path
    pids = page_ids()
    paths = [os.path.join(PAGES, f"{pid}_{variant}.png") for pid in pids]
    q_peek_path = paths[0]
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    for p in paths:
        q.put(p)
    time.sleep(0.2)
    barrier = ctx.Barrier(nproc)
    res = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(engine_name, threads, q, barrier, res))
        for _ in range(nproc)
    ]
    for p in procs:
        p.start()
    outs = [res.get() for _ in procs]
    for p in procs:
        p.join()
    start = min(o[0] for o in outs)
    end = max(o[1] for o in outs)
    n = sum(o[2] for o in outs)
    return {
        "pages": n,
        "wall_s": end - start,
        "pages_per_s": n / (end - start),
        "workers": nproc,
        "ort_threads_per_worker": threads if engine_name == "rapidocr" else None,
    }


def stage_parallel():
    res = load_json(RESULTS, {})
    par = res.setdefault("parallel", {})
    for variant in VARIANTS:
        for engine in ENGINES:
            k = f"{engine}/{variant}"
            if k in par:
                continue
            par[k] = run_parallel(engine, variant)
            print(k, par[k], flush=True)
            save_json(RESULTS, res)


# ---------------------------------------------------------------- rotation
def stage_rotation():
    res = load_json(RESULTS, {})
    refs = load_json(os.path.join(ROOT, "reference.json"), {})
    pids = ["msa_p02", "nda_p01"]
    out = []
    eng = rapid_engine()
    for pid in pids:
        im = Image.open(os.path.join(PAGES, f"{pid}_clean.png"))
        for ang in (90, 180):
            path = os.path.join(PAGES, f"{pid}_rot{ang}.png")
            im.rotate(ang, expand=True, fillcolor=255).save(path)  # PIL: counter-clockwise
            env = dict(os.environ, OMP_THREAD_LIMIT="1")
            t0 = time.perf_counter()
            p = subprocess.run(
                ["tesseract", path, "stdout", "--psm", "0"], env=env, capture_output=True, text=True
            )
            dt = time.perf_counter() - t0
            ent = {
                "page": pid,
                "rotation_ccw_deg": ang,
                "psm0_stdout": p.stdout.strip(),
                "psm0_stderr": p.stderr.strip(),
                "psm0_rc": p.returncode,
                "psm0_sec": dt,
            }
            txt, rdt, _ = rapid_text(eng, path)
            m = metrics_page(refs[pid], txt)
            ent["rapidocr_cer"] = m["ed"] / m["nref"]
            ent["rapidocr_cer_nows"] = m["ed_nows"] / m["nref_nows"]
            ent["rapidocr_sec"] = rdt
            ent["rapidocr_text_head"] = txt[:200]
            # tesseract psm3 on the rotated page, for comparison
            ttxt, tdt = tesseract_text(path)
            tm = metrics_page(refs[pid], ttxt)
            ent["tesseract_psm3_cer"] = tm["ed"] / tm["nref"]
            ent["tesseract_psm3_sec"] = tdt
            print(
                json.dumps({k: v for k, v in ent.items() if k != "rapidocr_text_head"}), flush=True
            )
            out.append(ent)
    res["rotation"] = out
    save_json(RESULTS, res)


# ---------------------------------------------------------------- metrics
def norm_ws(s):
    return WS_RE.sub(" ", s).strip()


def alpha_words(s):
    out = []
    for t in s.split():
        t = t.strip(".,;:!?()[]{}\"'“”‘’«»")
        if len(t) >= 3 and t.isalpha():
            out.append(t)
    return out


def ocr_tokens(s):
    return Counter(t.strip(".,;:!?()[]{}\"'“”‘’«»") for t in s.split())


def metrics_page(ref, hyp):
    r, h = norm_ws(ref), norm_ws(hyp)
    r0, h0 = WS_RE.sub("", ref), WS_RE.sub("", hyp)
    rnum = Counter(NUM_RE.findall(ref))
    hnum = Counter(NUM_RE.findall(hyp))
    rw = Counter(alpha_words(ref))
    ht = ocr_tokens(hyp)
    return {
        "ed": Levenshtein.distance(r, h),
        "nref": len(r),
        "ed_nows": Levenshtein.distance(r0, h0),
        "nref_nows": len(r0),
        "num_ref": sum(rnum.values()),
        "num_hit": sum((rnum & hnum).values()),
        "word_ref": sum(rw.values()),
        "word_hit": sum((rw & ht).values()),
    }


def stage_report():
    res = load_json(RESULTS, {})
    refs = load_json(os.path.join(ROOT, "reference.json"), {})
    cache = load_json(CACHE, {})
    summary = {}
    perpage = {}
    for variant in VARIANTS:
        for engine in ENGINES:
            tot = Counter()
            secs = []
            for pid, ref in refs.items():
                ent = cache.get(f"{variant}/{pid}", {}).get(engine)
                if not ent:
                    continue
                m = metrics_page(ref, ent["text"])
                tot.update(m)
                secs.append(ent["sec"])
                perpage[f"{engine}/{variant}/{pid}"] = dict(m, sec=ent["sec"])
            if not secs:
                continue
            k = f"{engine}/{variant}"
            par = res.get("parallel", {}).get(k, {})
            summary[k] = {
                "pages": len(secs),
                "cer_ws_normalised": tot["ed"] / tot["nref"],
                "cer_no_whitespace": tot["ed_nows"] / tot["nref_nows"],
                "numbers_exact_share": tot["num_hit"] / tot["num_ref"],
                "numbers_ref_tokens": tot["num_ref"],
                "words_as_whole_tokens_share": tot["word_hit"] / tot["word_ref"],
                "words_ref": tot["word_ref"],
                "sec_per_page_median_serial": statistics.median(secs),
                "sec_per_page_mean_serial": statistics.mean(secs),
                "pages_per_s_2_parallel": par.get("pages_per_s"),
                "pages_per_s_serial_equiv": 1 / statistics.mean(secs),
            }
    res["summary"] = summary
    res["per_page"] = perpage
    save_json(RESULTS, res)
    print(
        "| engine/variant | CER (ws-norm) | CER (no ws) | numbers exact | words as tokens "
        "| s/page median (1 at a time) | pages/s (2 parallel) |"
    )
    print("|---|---|---|---|---|---|---|")
    for k, s in summary.items():
        pp = s["pages_per_s_2_parallel"]
        print(
            f"| {k} | {s['cer_ws_normalised']:.2%} | {s['cer_no_whitespace']:.2%} | "
            f"{s['numbers_exact_share']:.1%} ({s['numbers_ref_tokens']}) | "
            f"{s['words_as_whole_tokens_share']:.1%} | "
            f"{s['sec_per_page_median_serial']:.2f} | {pp if pp is None else f'{pp:.2f}'} |"
        )


def stage_env():
    res = load_json(RESULTS, {})
    env = res.setdefault("env", {})
    env["nproc"] = os.cpu_count()
    env["cpu_flags"] = subprocess.run(
        "grep -o 'avx512[a-z_0-9]*\\|avx2\\|amx[a-z_]*' /proc/cpuinfo | sort -u",
        shell=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    env.setdefault("uptime_log", []).append(
        subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    )
    import importlib.metadata as md

    env["packages"] = {
        p: md.version(p)
        for p in [
            "pymupdf",
            "rapidocr-onnxruntime",
            "onnxruntime",
            "numpy",
            "pillow",
            "rapidfuzz",
            "opencv-python",
        ]
    }
    env["tesseract"] = subprocess.run(
        ["tesseract", "--version"], capture_output=True, text=True
    ).stdout.splitlines()[0]
    save_json(RESULTS, res)
    print(json.dumps(env, indent=1))


if __name__ == "__main__":
    stages = sys.argv[1:] or ["env", "raster", "serial", "parallel", "rotation", "report", "env"]
    for st in stages:
        globals()[f"stage_{st}"]()
