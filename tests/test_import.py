from __future__ import annotations

import subprocess
import sys


def test_import_is_light():
    code = (
        "import sys, lateseg\n"
        "heavy = [m for m in ('torch', 'transformers', 'faiss', 'pymupdf', 'httpx', 'ssl',"
        " 'subprocess', 'importlib.resources', 'lateseg.ingest.ocr.engine',"
        " 'lateseg.generate.remote.client') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
        "assert lateseg.Pipeline and lateseg.Hit and lateseg.Document\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
