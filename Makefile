# The book's two commands (see README.md):
#   make book [PROFILE=quick|reference|full] [ONLY="00 02"]   execute the chapters, render the HTML
#   make test                                                  run the test suite
#   make thread-check     the trained chapters' quick claims agree with 1 and 2 CPU threads (CI)
# Knobs: PYTHON (interpreter for the venv), VENV, VENV_ARGS (e.g. --system-site-packages
# to reuse a CUDA torch already installed), WHEELS (a folder of wheels for an offline
# install, see scripts/fetch_wheels.sh), DEVICE (auto|cpu|cuda, overrides every chapter).

PROFILE ?= quick
ONLY ?=
PYTHON ?= python3
VENV ?= .venv
VENV_ARGS ?=
WHEELS ?=
DEVICE ?=
PYTEST_ARGS ?=

PY := $(VENV)/bin/python
STAMP := $(VENV)/.seqmi-installed
PIP := $(PY) -m pip install --disable-pip-version-check -q
ifneq ($(strip $(WHEELS)),)
PIP += --no-index --find-links $(WHEELS)
MATHJAX_ARGS := --tarball $(WHEELS)
endif
ONLY_ARGS := $(if $(strip $(ONLY)),--only $(ONLY))
DEVICE_ARGS := $(if $(strip $(DEVICE)),--device $(DEVICE))

.PHONY: book execute build results test thread-check install clean

book: execute build

execute: $(STAMP)
	$(PY) -m seqmi.book execute --profile $(PROFILE) $(ONLY_ARGS) $(DEVICE_ARGS)

build: $(STAMP)
	$(PY) -m seqmi.book build --profile $(PROFILE) $(ONLY_ARGS)

# Execute and copy the headline results into results/<profile>/ (commit results/full/, results/reference/).
results: execute
	$(PY) -m seqmi.book record --profile $(PROFILE) $(ONLY_ARGS)

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

# The trained chapters' quick claims with 1 and with 2 CPU threads must agree within what
# their statistics resolve (CI runs it after the tests; about 10 minutes on two cores).
thread-check: $(STAMP)
	$(PY) scripts/thread_check.py

install: $(STAMP)

# One resolver pass over requirements/lock.txt, which pins every package, torch included:
# the environment that is tested is the one that was locked. Plain pip rather than uv,
# because pip honours the user's own pip configuration (index, find-links, proxy,
# certificates): where those sources offer a `+cpu` torch wheel, `torch==X` picks it
# (X+cpu sorts above X) and no CUDA library is downloaded. uv reads no pip.conf and
# would fall back to PyPI's CUDA build; with every version pinned, resolving is not
# the slow part anyway (downloading and unpacking is). A venv created with
# VENV_ARGS=--system-site-packages that already sees a torch outside itself (a GPU
# node's CUDA build) keeps it: only then is torch left out of the pass.
$(STAMP): pyproject.toml requirements/lock.txt requirements/nodeps.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV_ARGS) $(VENV)
	if $(PY) -c "$$SYSTEM_TORCH" 2>/dev/null; then \
	  echo "reusing the torch outside the venv: $$($(PY) -c 'import torch; print(torch.__version__, torch.__file__)')"; \
	  grep -v '^torch==' requirements/lock.txt > $(VENV)/lock.txt; \
	else cp requirements/lock.txt $(VENV)/lock.txt; fi
	$(PIP) -r $(VENV)/lock.txt
	$(PIP) --no-deps -r requirements/nodeps.txt
	$(PIP) --no-deps --no-build-isolation -e .
	$(PY) -m seqmi.book mathjax $(MATHJAX_ARGS)
	touch $(STAMP)

# exit 0 when torch imports from outside the venv (system site packages), else non-zero
export SYSTEM_TORCH := import sys, pathlib, torch; \
sys.exit(pathlib.Path(torch.__file__).resolve().is_relative_to(pathlib.Path(sys.prefix).resolve()))

clean:
	rm -rf _build
