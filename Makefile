# The book's two commands (see README.md):
#   make book [PROFILE=quick|full] [ONLY="00 02"]   execute the chapters, render the HTML
#   make test                                       run the test suite
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

.PHONY: book execute build results test install clean

book: execute build

execute: $(STAMP)
	$(PY) -m seqmi.book execute --profile $(PROFILE) $(ONLY_ARGS) $(DEVICE_ARGS)

build: $(STAMP)
	$(PY) -m seqmi.book build --profile $(PROFILE) $(ONLY_ARGS)

# Execute and copy the headline results into results/<profile>/ (commit results/full/).
results: execute
	$(PY) -m seqmi.book record --profile $(PROFILE) $(ONLY_ARGS)

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

install: $(STAMP)

# torch is installed only when the venv cannot import one already: a GPU user who
# created the venv with VENV_ARGS=--system-site-packages keeps the CUDA build they have.
$(STAMP): pyproject.toml requirements/lock.txt requirements/nodeps.txt requirements/torch.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV_ARGS) $(VENV)
	$(PIP) -r requirements/lock.txt
	$(PIP) --no-deps -r requirements/nodeps.txt
	$(PY) -c "import torch" 2>/dev/null || $(PIP) -r requirements/torch.txt
	$(PIP) --no-deps --no-build-isolation -e .
	$(PY) -m seqmi.book mathjax $(MATHJAX_ARGS)
	touch $(STAMP)

clean:
	rm -rf _build
