#!/usr/bin/env python3
"""Quality counts of a recorded run, from its JSON event log (pipelines/cassettes/<id>.log.jsonl).

    scripts/quality-counts.py pipelines/cassettes/*.log.jsonl

For each model stage: items valid at the first attempt, valid after repair, failed; and the
tokens the model generated and read. Rendering and other local items (no attempt) are not model
calls and are left out.
"""
import json
import sys
from collections import defaultdict


def counts(path):
    stages = defaultdict(lambda: {"first": 0, "repaired": 0, "failed": 0, "completion": 0, "prompt": 0, "ms": 0})
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        stage = event.get("stage")
        if not stage or stage == "render":
            continue
        kind = event.get("event")
        if kind == "item_finished":
            if event.get("attempts", 1) == 0:
                continue  # a local item (a passage, the bank, a form): no model call
            row = stages[stage]
            row["first" if event.get("attempts", 1) == 1 else "repaired"] += 1
            row["completion"] += event.get("completion_tokens", 0)
            row["prompt"] += event.get("prompt_tokens", 0)
            row["ms"] += event.get("latency_ms", 0)
        elif kind == "item_failed" and event.get("reason") != "dependency":
            stages[stage]["failed"] += 1
    return stages


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        stages = counts(path)
        print(f"{path}")
        print(f"  {'stage':<22}{'first try':>10}{'repaired':>10}{'failed':>8}{'generated':>11}{'read':>9}")
        total = defaultdict(int)
        for stage in sorted(stages):
            row = stages[stage]
            print(f"  {stage:<22}{row['first']:>10}{row['repaired']:>10}{row['failed']:>8}{row['completion']:>11}{row['prompt']:>9}")
            for key, value in row.items():
                total[key] += value
        print(f"  {'total':<22}{total['first']:>10}{total['repaired']:>10}{total['failed']:>8}{total['completion']:>11}{total['prompt']:>9}")


if __name__ == "__main__":
    main(sys.argv[1:])
