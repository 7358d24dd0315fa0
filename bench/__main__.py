"""``python -m bench [--only SECTION]... [--quick]`` (what ``make bench`` runs): print the
benchmark figures. A wrong option or section is one line naming the fix, and status 2."""

from __future__ import annotations

import argparse
import sys

from bench import SECTIONS, run_sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Print the benchmark figures: engines, sandbox, "
                                            "leagues, the server, start-up.")
    parser.add_argument("--only", action="append", default=[], metavar="SECTION",
                        help=f"run only this section (repeatable): {', '.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="shorter runs, rougher figures")
    args = parser.parse_args(argv)
    unknown = [s for s in args.only if s not in SECTIONS]
    if unknown:
        print(f"bench: error: unknown section {unknown[0]!r}; choose from "
              f"{', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    run_sections(args.only, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
