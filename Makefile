# Build a Transformer: everyday commands. `make help` lists them.
#
# Everything runs in a virtual environment in .venv, created on first use.
# PyTorch: TORCH_SPEC pins the version the course is tested with. On Linux
# without a GPU, `make install TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu"`
# fetches the small CPU build instead of the default CUDA one.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
PYTEST_ARGS ?= -n 2 --dist loadgroup
NB ?=
# The course hub's proxy (JupyterHub's own, Node), installed by npm into the venv.
CHP_SPEC ?= configurable-http-proxy@5.3.0
ROSTER ?= hub/roster.example.csv
HUB_ARGS ?=

export PATH := $(abspath $(BIN)):$(PATH)
# The venv's own kernel first, even if a user-level `python3` kernelspec points elsewhere.
export JUPYTER_PATH := $(abspath $(VENV))/share/jupyter

.PHONY: help install hub lab lab-instructor test test-fast lint format notebooks check-generated grade clean

help:
	@echo "make lab               open the course in JupyterLab (installs everything first)"
	@echo "make lab-instructor    JupyterLab with nbgrader's instructor tools (Formgrader, Create Assignment)"
	@echo "make hub               a JupyterHub for a class on this machine (ROSTER=students.csv; README)"
	@echo "make test              run the whole test suite (installs everything first)"
	@echo "make grade NB=path     grade one notebook with the hidden checks"
	@echo "make notebooks         regenerate solutions/*.ipynb and notebooks/ from the lesson masters"
	@echo "make check-generated   fail if a committed notebook differs from its master"
	@echo "make lint / format     ruff"
	@echo "make test-fast         the tests that do not execute notebooks"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "The course needs Python 3.11 or newer; set PYTHON=python3.11 (or newer).")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet $(TORCH_INDEX) "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -e ".[dev,hub]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	@if command -v npm >/dev/null; then \
	  npm install --silent --no-audit --no-fund --prefix $(VENV)/hub-proxy $(CHP_SPEC); \
	else echo "npm not found: the course hub (make hub) needs Node's npm for its proxy"; fi
	touch $@

install: $(VENV)/.installed

# JupyterLab serves the whole repository (every lesson and the solutions are one click
# away) and opens lesson 00. jupyter-config/learner/ keeps the first start free of
# pop-ups and gives learners nbgrader's Validate button only; jupyter-config/instructor/
# adds nbgrader's instructor panels. Nothing in ~/.jupyter is needed or changed.
# LAB_ARGS passes more JupyterLab options, e.g. LAB_ARGS="--no-browser --port=8899".
LAB_ARGS ?=
LAB_LEARNER := $(CURDIR)/jupyter-config/learner
LAB_INSTRUCTOR := $(CURDIR)/jupyter-config/instructor:$(LAB_LEARNER)
LAB = $(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) --ServerApp.root_dir=.

lab: install
	JUPYTER_CONFIG_PATH="$(LAB_LEARNER)" $(LAB) $(LAB_ARGS) notebooks/00_welcome/00_welcome.ipynb

# A JupyterHub for a class (README, "For instructors"): accounts from the roster,
# nbgrader's exchange, the instructor's course directory; Ctrl+C stops it.
hub: install
	$(BIN)/python -m transformer_course.hub start $(ROSTER) $(HUB_ARGS)

lab-instructor: install
	JUPYTER_CONFIG_PATH="$(LAB_INSTRUCTOR)" $(LAB) $(LAB_ARGS) solutions/00_welcome/00_welcome.ipynb

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not notebook and not pipeline" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

notebooks: install
	$(BIN)/python -m transformer_course.build

check-generated: install
	$(BIN)/python -m transformer_course.build --check

grade: install
	@test -n "$(NB)" || (echo "usage: make grade NB=notebooks/01_tokenization/01_tokenization.ipynb" && exit 2)
	$(BIN)/python -m transformer_course.selfgrade "$(NB)"

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache src/*.egg-info
