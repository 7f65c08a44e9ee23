#!/usr/bin/env python3
"""Markdown tables of what the checks did, from bundles' quality.json (docs/bundle.md).

    scripts/quality-table.py BUNDLE_DIR [BUNDLE_DIR...]

For each bundle: model answers accepted first time, repaired and failed, attempts, blind-solve
agreement; then one row per check that refused or flagged anything (refusals = attempts it
refused; repaired, flagged and failed count items). docs/BENCHMARKS.md quotes its output for the
recorded examples, each replayed offline from its cassette.
"""
import json
import os
import sys


def table(path):
    with open(os.path.join(path, "quality.json")) as f:
        quality = json.load(f)
    items = quality["items"]
    solve = items.get("blind_solve", {})
    name = os.path.basename(os.path.dirname(os.path.normpath(path)))
    agreed = f"{solve.get('agreed', 0)}/{solve.get('asked', 0)}" if solve.get("asked") else "–"
    print(f"**{name}**: {items['checked']} model answers, {items['first_time']} accepted first time, "
          f"{items['repaired']} repaired, {items['failed']} failed; {items['attempts']} attempts; "
          f"blind solver agreed with the key {agreed}")
    print()
    print("| check | refusals | items repaired | flagged | failed |")
    print("|---|---|---|---|---|")
    quiet = []
    for check in quality["checks"]:
        if check["refusals"] or check["repaired"] or check["flagged"] or check["failed"]:
            print(f"| {check['check']} | {check['refusals']} | {check['repaired']} | {check['flagged']} | {check['failed']} |")
        else:
            quiet.append(check["check"])
    if quiet:
        print(f"| (no refusal: {', '.join(quiet)}) | 0 | 0 | 0 | 0 |")
    print()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        table(path)


if __name__ == "__main__":
    main()
