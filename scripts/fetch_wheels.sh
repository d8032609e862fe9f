#!/usr/bin/env bash
# Download, on a machine with network, everything `make` installs, for a Linux x86-64
# machine without network (e.g. a GPU node that has torch+CUDA but no papermill,
# jupytext or ipykernel). Then, on that machine:
#
#   make book PROFILE=full WHEELS=wheels VENV_ARGS=--system-site-packages
#
# VENV_ARGS lets the venv see the node's own CUDA torch, so torch is not reinstalled.
#
# usage: scripts/fetch_wheels.sh PYTHON_VERSION [DEST]    e.g. scripts/fetch_wheels.sh 3.12.3
# Give the node's full `python3 --version` when you can: some wheels require a patch
# level (e.g. >=3.11.5), and a bare 3.11 means 3.11.0 to pip.
set -euo pipefail
cd "$(dirname "$0")/.."
pyver=${1:?usage: scripts/fetch_wheels.sh PYTHON_VERSION [DEST], e.g. 3.12.3}
dest=${2:-wheels}
if ! [[ $pyver =~ ^3\.[0-9]+(\.[0-9]+)?$ ]]; then
  echo "error: PYTHON_VERSION must look like 3.12 or 3.12.3, got '$pyver'" >&2
  exit 2
fi
platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 \
           manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$tag")
done
mkdir -p "$dest"
# torch is left out: the node keeps its own CUDA build (VENV_ARGS=--system-site-packages),
# and `make` then leaves torch out of its pass too.
lock=$(mktemp)
trap 'rm -f "$lock"' EXIT
grep -v '^torch==' requirements/lock.txt > "$lock"
python3 -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
  --implementation cp --python-version "$pyver" "${platforms[@]}" \
  -r "$lock" -r requirements/nodeps.txt -d "$dest"
# MathJax for an offline-readable book (checked against its checksum when installed).
version=$(sed -n 's/^MATHJAX_VERSION = "\(.*\)"$/\1/p' src/seqmi/book.py)
[ -f "$dest/mathjax-$version.tgz" ] ||
  python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    "https://registry.npmjs.org/mathjax/-/mathjax-$version.tgz" "$dest/mathjax-$version.tgz"
echo "wheels for Python $pyver in $dest/ ($(ls "$dest" | wc -l) files, $(du -sh "$dest" | cut -f1))"
