"""The command line ``python -m seqmi.book`` (its usage: :mod:`seqmi.book`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from seqmi.book._chapters import BookError, chapters, cli_overrides, describe_parameters, find_root, select
from seqmi.book._recordings import merge_section, reclaim, record, record_section
from seqmi.book._running import execute, execute_section
from seqmi.book._staging import MATHJAX_VERSION, build, install_mathjax
from seqmi.profiles import PROFILES

# what --help says the command does (the first line of the package's docstring)
DESCRIPTION = "Execute the book's chapters with papermill and render them with Jupyter Book."


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m seqmi.book", description=DESCRIPTION)
    parser.add_argument("--root", type=Path, default=None, help="book root (default: found from cwd)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the chapters and their parameters")
    for name, help_text in (("execute", "execute chapters with papermill"),
                            ("build", "render the executed chapters to HTML"),
                            ("record", "copy executed results to results/<profile>/ (with --section: "
                                       "execute one section and merge it into the recording)"),
                            ("reclaim", "decide the claims of results/<profile>/ again from their saved "
                                        "numbers, with the current rules")):
        cmd = sub.add_parser(name, help=help_text)
        cmd.add_argument("--profile", choices=PROFILES, default="quick")
        cmd.add_argument("--only", nargs="*", default=None, metavar="ID",
                         help="chapter ids or NN prefixes (default: all)")
        if name in ("record", "execute"):
            cmd.add_argument("--section", default=None, metavar="NAME",
                             help="execute the cells tagged section-NAME of the one chapter in --only"
                                  + (" and merge them into its recorded run" if name == "record" else
                                     " (its caches filled, no recording touched)"))
        if name == "record":
            cmd.add_argument("--executed", type=Path, default=None, metavar="DIR",
                             help="with --section: merge this folder, which `execute --section` wrote "
                                  "(e.g. on a GPU machine), instead of executing the section here")
        if name == "execute":
            cmd.add_argument("--device", choices=("auto", "cpu", "cuda"), default=None,
                             help="override every chapter's device parameter")
            # papermill's own flags, applied on top of the profile
            cmd.add_argument("-p", "--parameters", nargs=2, action="append", metavar=("NAME", "VALUE"),
                             help="set a parameter; VALUE is typed as papermill types it")
            cmd.add_argument("-r", "--parameters_raw", nargs=2, action="append", metavar=("NAME", "VALUE"),
                             help="set a parameter to the string VALUE")
            cmd.add_argument("-y", "--parameters_yaml", action="append", metavar="YAML",
                             help='parameters as a YAML string, e.g. "max_lag: 40"')
            cmd.add_argument("-f", "--parameters_file", action="append", type=Path, metavar="FILE",
                             help="parameters from a YAML file")
    mj = sub.add_parser("mathjax", help="install MathJax 3 into _static/ for offline reading")
    mj.add_argument("--tarball", type=Path, default=None, help=f"local mathjax-{MATHJAX_VERSION}.tgz, or a folder holding it")
    return parser


def _one_chapter(root: Path, only: list[str] | None) -> str:
    """The one chapter ``--only`` names, as ``--section`` needs it."""
    selected = select(root, only)
    if len(selected) != 1:
        raise BookError(f"--section needs exactly one chapter in --only, got {selected}")
    return selected[0]


def _brief(claim: dict[str, Any] | None) -> str:
    """A claim's verdict, value and interval in one line (``"absent"`` for none)."""
    if claim is None:
        return "absent"
    ci = claim.get("ci")
    interval = f" [{ci[0]:.4g}, {ci[1]:.4g}]" if ci and None not in ci else ""
    value = "" if claim.get("value") is None else f" {claim['value']:.4g}"
    return f"{claim['verdict']}{value}{interval}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m seqmi.book``; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        root = find_root(args.root)
        if args.command == "list":
            for chapter in chapters(root):
                print(describe_parameters(root, chapter))
        elif args.command == "execute":
            extra = cli_overrides(args.parameters, args.parameters_raw, args.parameters_yaml,
                                  args.parameters_file)
            if args.device:
                extra["device"] = args.device
            if args.section:
                out = execute_section(root, args.profile, _one_chapter(root, args.only), args.section, extra)
                print(f"section executed into {out.relative_to(root)}")
                return 0
            manifest = execute(root, args.profile, args.only, extra)
            failed = [c for c, entry in manifest.items() if entry["status"] != "ok"]
            if failed:
                raise BookError(f"chapter(s) failed: {', '.join(failed)}")
        elif args.command == "build":
            print(f"The book: {build(root, args.profile, only=args.only)}")
        elif args.command == "record" and args.section:
            chapter = _one_chapter(root, args.only)
            path = (merge_section(root, args.profile, chapter, args.section, args.executed) if args.executed
                    else record_section(root, args.profile, chapter, args.section))
            print(f"recorded {path.relative_to(root)}")
        elif args.command == "record":
            for path in record(root, args.profile, args.only):
                print(f"recorded {path.relative_to(root)}")
        elif args.command == "reclaim":
            for path, moved in reclaim(root, args.profile, args.only):
                print(f"claims decided again: {path.relative_to(root)}, {len(moved)} moved")
                for m in moved:
                    print(f"  {m['id']}: {_brief(m['before'])} -> {_brief(m['after'])}")
        elif args.command == "mathjax":
            print(f"MathJax in {install_mathjax(root, args.tarball)}")
    except BookError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0

