#!/usr/bin/env python3
"""Convert the US amateur-radio exam question pools shipped by Debian's `hamexam` package into
Lectern's JSON Lines bank format, one question a line:

    {"id": "T1A01", "question": "...", "options": ["...", "...", "...", "..."], "answer": 2}

The package keeps one file per question under /usr/share/hamexam/{T,G,E}/ (Technician, General
and Extra class pools), six lines each:

    T1A01 (C) [97.1]
    Which of the following is a purpose of the Amateur Radio Service ...?
    A. Providing personal radio communications for as many citizens as possible
    B. ...
    C. ...
    D. ...

Each pool is an exam of its own and becomes a bank of its own: hamexam-technician.jsonl,
hamexam-general.jsonl and hamexam-extra.jsonl, questions in id order; the files are byte-for-byte
the same for the same package.

Usage:
    scripts/hamexam-to-jsonl.py                 # downloads the package with apt-get into a temporary directory
    scripts/hamexam-to-jsonl.py --deb FILE.deb  # a downloaded package
    scripts/hamexam-to-jsonl.py --pool-dir DIR  # an unpacked /usr/share/hamexam
    --output-dir DIR                            # where to write (default Tests/LecternCoreTests/Fixtures/banks)
"""

import re
import tempfile
from pathlib import Path

from debian_pools import arguments, pool_dir, write_bank

HEADER = re.compile(r"^([TGE][0-9][A-Z][0-9]{2}) \(([A-D])\)")
OPTION = re.compile(r"^([A-D])\. (.*)$")
POOLS = {"T": "technician", "G": "general", "E": "extra"}


def convert(path: Path) -> dict:
    lines = [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")]
    lines = [line for line in lines if line.strip()]
    header = HEADER.match(lines[0]) if lines else None
    if not header or len(lines) != 6:
        raise ValueError(f"{path}: expected a header line, a question and options A-D (6 lines)")
    options = []
    for expected, line in zip("ABCD", lines[2:]):
        match = OPTION.match(line)
        if not match or match.group(1) != expected:
            raise ValueError(f"{path}: option line '{line}' is not '{expected}. ...'")
        options.append(match.group(2).strip())
    return {"id": header.group(1), "question": lines[1].strip(), "options": options, "answer": "ABCD".index(header.group(2))}


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], "hamexam")
    with tempfile.TemporaryDirectory() as temporary:
        pools = pool_dir("hamexam", args, Path(temporary))
        for pool, name in POOLS.items():
            items = [convert(path) for path in sorted((pools / pool).iterdir()) if HEADER.match(path.name + " (A)")]
            write_bank(args.output_dir / f"hamexam-{name}.jsonl", items)


if __name__ == "__main__":
    main()
