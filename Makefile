# lateseg: the two quick-start commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The demo index lives in the checkout (.cache/ is ignored by git); LATESEG_DEMO_INDEX moves it.
INDEX  ?= $(or $(LATESEG_DEMO_INDEX),.cache/demo-index)
QUESTION ?= How many days' notice must the Client give to terminate the Master Services Agreement for convenience?

TESTDATA := .cache/testdata

.PHONY: install install-gpu demo test test-fast lint clean testdata browser postgres ocr

install: $(STAMP)

$(STAMP): pyproject.toml requirements/cpu.txt requirements/generator.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(BIN)/pip install --quiet -r requirements/cpu.txt
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps -r requirements/generator.txt
	touch $(STAMP)

# On a CUDA machine: FAISS's GPU build over the faiss-cpu files (both ship the module
# `faiss`; reinstalling faiss-gpu last makes its files the ones that stay).
install-gpu: install
	$(BIN)/pip install --quiet -e '.[gpu]'
	$(BIN)/pip install --quiet --force-reinstall --no-deps 'faiss-gpu>=1.15.1'
	$(BIN)/python -c "import faiss; print('faiss GPUs:', faiss.get_num_gpus())"

# Ingest the sample contracts and codebase, then answer a question twice: as `ask` does
# by default (the value first, quoted in its sentence, with its citation) and in the local
# generator's own words, each sentence checked against the passages.
demo: install ocr
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

test: install testdata browser postgres ocr
	$(BIN)/ruff check lateseg tests pipelines data bench
	$(BIN)/mypy
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q

# The tests but the slow ones (generator, training, Ray, browser, PostgreSQL, long
# end-to-end paths): a few minutes, no apt installs. `make test` runs them all.
test-fast: install testdata
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q -m "not slow"

lint: install
	$(BIN)/ruff check lateseg tests pipelines data bench
	$(BIN)/ruff format --check lateseg tests pipelines data bench

clean:
	rm -rf $(VENV) .pytest_cache
