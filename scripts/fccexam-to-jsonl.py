#!/usr/bin/env python3
"""Convert the US commercial radio operator (FCC) exam question pools shipped by Debian's
`fccexam` package into Lectern's JSON Lines bank format, one question a line:

    {"id": "3-24C4", "question": "...", "options": ["...", "...", "...", "..."], "answer": 2}

The package keeps one file per question under /usr/share/fccexam/<element>/ (Elements 1, 3, 5, 6,
7, 7R, 8 and 9), a header line with the id and the key's letter, the question (one line, or
several), then options A-D:

    3-24C4 C
    What special type of diode is capable of both amplification and oscillation?
    A. Zener diodes.
    ...

Element 3 writes some keys as "B)". Each element is an exam of its own and becomes a bank of its
own (fccexam-e1.jsonl … fccexam-e9.jsonl), questions in file-name order; the files are byte for
byte the same for the same package.

Usage:
    scripts/fccexam-to-jsonl.py                 # downloads the package with apt-get into a temporary directory
    scripts/fccexam-to-jsonl.py --deb FILE.deb  # a downloaded package
    scripts/fccexam-to-jsonl.py --pool-dir DIR  # an unpacked /usr/share/fccexam
    --output-dir DIR                            # where to write (default Tests/LecternCoreTests/Fixtures/banks)
"""

import re
import tempfile
from pathlib import Path

from debian_pools import arguments, pool_dir, write_bank

HEADER = re.compile(r"^(\S+)\s+([A-D])\)?\s*$")
OPTION = re.compile(r"^([A-D])\.\s*(.*)$")
ELEMENTS = ["E1", "E3", "E5", "E6", "E7", "E7R", "E8", "E9"]


def convert(path: Path) -> dict:
    lines = [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")]
    lines = [line for line in lines if line.strip()]
    header = HEADER.match(lines[0]) if lines else None
    if not header:
        raise ValueError(f"{path}: the first line is not '<id> <key letter>'")
    first_option = next((i for i, line in enumerate(lines) if i > 0 and OPTION.match(line)), None)
    if first_option is None or first_option < 2:
        raise ValueError(f"{path}: expected a question, then options A-D")
    question = " ".join(line.strip() for line in lines[1:first_option])
    options = []
    for expected, line in zip("ABCD", lines[first_option:]):
        match = OPTION.match(line)
        if not match or match.group(1) != expected:
            raise ValueError(f"{path}: option line '{line}' is not '{expected}. ...'")
        options.append(match.group(2).strip())
    if len(options) != 4 or len(lines) != first_option + 4:
        raise ValueError(f"{path}: expected exactly the options A-D after the question")
    return {"id": header.group(1), "question": question, "options": options, "answer": "ABCD".index(header.group(2))}


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], "fccexam")
    with tempfile.TemporaryDirectory() as temporary:
        pools = pool_dir("fccexam", args, Path(temporary))
        for element in ELEMENTS:
            items = [convert(path) for path in sorted((pools / element).iterdir()) if path.is_file()]
            write_bank(args.output_dir / f"fccexam-{element.lower()}.jsonl", items)


if __name__ == "__main__":
    main()
