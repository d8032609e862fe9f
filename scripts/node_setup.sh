#!/usr/bin/env bash
# Set up a GPU node without network to execute the chapters, with the node's own CUDA torch.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
usage: scripts/node_setup.sh [--wheels DIR] [--site DIR] [--env FILE] [--python PY] [--cpu]

Finds the Python that imports torch with CUDA (PY or $PYTHON if given; else python3,
python, the active conda or venv's, /usr/bin/python3, /usr/local/bin/python3, and
/opt/*/bin/python3), installs the wheels carried in DIR (default wheels/, made by
scripts/fetch_wheels.sh) into the folder SITE (default .node-site/) without their
dependencies, and writes FILE (default .node-env), which puts SITE and src/ on that
Python's path:

  source .node-env
  "$SEQMI_PYTHON" -m seqmi.book execute --profile full --only 04

No venv is made: a venv made from a Python that is itself a venv's gets the base
interpreter's site-packages, not the parent venv's, and so loses the node's torch.
Before it returns, the script imports torch, seqmi, papermill, jupytext and ipykernel
with that Python and path, and fails naming the module that is missing.

  --wheels DIR  the carried wheels (every *.whl in it is installed, none downloaded)
  --site DIR    where they go (added to PYTHONPATH by the env file)
  --env FILE    the env file to write
  --python PY   use this Python (it must import torch)
  --cpu         accept a torch without CUDA (a check of the recipe on a CPU machine)
  -h, --help    this text
EOF
}

wheels=wheels site=.node-site env=.node-env python=${PYTHON:-} need_cuda=1
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --wheels) wheels=${2:?--wheels needs a folder}; shift ;;
    --site) site=${2:?--site needs a folder}; shift ;;
    --env) env=${2:?--env needs a file}; shift ;;
    --python) python=${2:?--python needs an interpreter}; shift ;;
    --cpu) need_cuda=0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -d "$wheels" ]; then
  echo "error: no wheels folder '$wheels' (make it with scripts/fetch_wheels.sh on a machine with network)" >&2
  exit 2
fi

# the check a candidate must pass: torch imports, with CUDA unless --cpu
probe="import torch, sys; sys.exit(0 if ($need_cuda == 0 or torch.cuda.is_available()) else 3)"
if [ -n "$python" ]; then
  candidates=("$python")
else
  candidates=(python3 python ${CONDA_PREFIX:+"$CONDA_PREFIX/bin/python"} ${VIRTUAL_ENV:+"$VIRTUAL_ENV/bin/python"}
              /usr/bin/python3 /usr/local/bin/python3 /opt/*/bin/python3)
fi
found=""
for candidate in "${candidates[@]}"; do
  path=$(command -v "$candidate" 2>/dev/null) || continue
  if "$path" -c "$probe" 2>/dev/null; then
    found=$path
    break
  fi
done
if [ -z "$found" ]; then
  what=$([ "$need_cuda" = 1 ] && echo "torch with CUDA" || echo "torch")
  echo "error: no Python imports $what; tried: ${candidates[*]} (name one with --python)" >&2
  exit 1
fi
echo "Python with torch: $found ($("$found" -c 'import torch; print(torch.__version__, "CUDA" if torch.cuda.is_available() else "CPU")'))"

shopt -s nullglob
carried=("$wheels"/*.whl)
shopt -u nullglob
if [ ${#carried[@]} -gt 0 ]; then
  # --no-deps: the folder holds exactly what the node lacks (fetch_wheels.sh leaves out what
  # it has); resolving dependencies here would shadow the node's own numpy or torch
  "$found" -m pip install --disable-pip-version-check -q --no-index --no-deps --upgrade --target "$site" \
    "${carried[@]}"
fi
site_abs=$(cd "$(dirname "$site")" 2>/dev/null && pwd)/$(basename "$site")
mkdir -p "$site_abs"
cat > "$env" <<EOF
# written by scripts/node_setup.sh: the node's Python, with the carried wheels and seqmi on its path
export SEQMI_PYTHON="$found"
export PYTHONPATH="$site_abs:$PWD/src\${PYTHONPATH:+:\$PYTHONPATH}"
EOF
# shellcheck source=/dev/null
. "$(cd "$(dirname "$env")" && pwd)/$(basename "$env")"
for module in torch seqmi papermill jupytext ipykernel; do
  if ! "$found" -c "import $module" 2>/dev/null; then
    echo "error: $found cannot import $module with the carried wheels ($wheels): fetch it with" \
         "scripts/fetch_wheels.sh --extra $module" >&2
    exit 1
  fi
done
echo "ready: source $env, then run \"\$SEQMI_PYTHON\" -m seqmi.book ... (${#carried[@]} wheels in $site)"
