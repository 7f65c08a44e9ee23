#!/usr/bin/env python3
"""Model time per stage of a recorded example: the exchanges its cassette holds (every attempt
of the chains that made the bundle, refused ones included), timed from the exchange cache the
recording filled (cassettes carry no timing, so that replays are byte-stable).

    scripts/model-time.py pipelines/cassettes/python-collections.jsonl .build/fixtures-cache/python-collections

Prints, per stage: calls, completion tokens, and the seconds the local model spent answering.
"""
import json
import os
import sys
from collections import defaultdict


def main(cassette, cache):
    rows = defaultdict(lambda: [0, 0, 0])
    missing = 0
    for line in open(cassette, encoding="utf-8"):
        entry = json.loads(line)
        key = entry["key"]
        path = os.path.join(cache, "exchanges", key[:2], key + ".json")
        if not os.path.exists(path):
            missing += 1
            continue
        cached = json.load(open(path, encoding="utf-8"))
        usage = (cached.get("response") or {}).get("usage") or {}
        row = rows[entry.get("stage", "?")]
        row[0] += 1
        row[1] += usage.get("completionTokens", usage.get("completion_tokens", 0))
        row[2] += cached.get("elapsed_ms", 0)
    print(f"{'stage':24} {'calls':>5} {'tokens out':>10} {'model s':>8}")
    total = [0, 0, 0]
    for stage in sorted(rows):
        calls, tokens, ms = rows[stage]
        total = [total[0] + calls, total[1] + tokens, total[2] + ms]
        print(f"{stage:24} {calls:5} {tokens:10} {ms / 1000:8.1f}")
    print(f"{'total':24} {total[0]:5} {total[1]:10} {total[2] / 1000:8.1f}")
    if missing:
        print(f"({missing} exchanges of the cassette are not in the cache)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
