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

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HEADER = re.compile(r"^([TGE][0-9][A-Z][0-9]{2}) \(([A-D])\)")
OPTION = re.compile(r"^([A-D])\. (.*)$")
POOLS = {"T": "technician", "G": "general", "E": "extra"}


def unpack(deb: Path, into: Path) -> Path:
    subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
    return into / "usr/share/hamexam"


def download(into: Path) -> Path:
    subprocess.run(["apt-get", "download", "hamexam"], cwd=into, check=True, stdout=subprocess.DEVNULL)
    debs = sorted(into.glob("hamexam_*.deb"))
    if not debs:
        sys.exit("apt-get download hamexam wrote no package; run 'apt-get update' first")
    return debs[-1]


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--deb", type=Path, help="a downloaded hamexam .deb")
    source.add_argument("--pool-dir", type=Path, help="an unpacked /usr/share/hamexam directory")
    parser.add_argument("--output-dir", type=Path, default=Path("Tests/LecternCoreTests/Fixtures/banks"), help="where to write the banks")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        temporary = Path(temporary)
        pool_dir = args.pool_dir
        if pool_dir is None:
            deb = args.deb or download(temporary)
            print(f"package: {deb.name}, sha256 {hashlib.sha256(deb.read_bytes()).hexdigest()}", file=sys.stderr)
            pool_dir = unpack(deb, temporary / "root")
        args.output_dir.mkdir(parents=True, exist_ok=True)
        for pool, name in POOLS.items():
            items = [convert(path) for path in sorted((pool_dir / pool).iterdir()) if HEADER.match(path.name + " (A)")]
            target = args.output_dir / f"hamexam-{name}.jsonl"
            target.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
            print(f"{target}: {len(items)} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
