#!/usr/bin/env python3
"""Tag stability of the quotes kind: how often two recordings with different seeds agree.

    scripts/quote-tag-stability.py A.jsonl B.jsonl

A and B are cassettes (or `lectern cache export` files) of the same quotes spec recorded with
different `model.seed` values. The corpus and so the batches are the same in both, so the
first answer of batch `tag/<b>` in A and in B judge the same quotes under the same numbers;
later rounds (`tag/<b>/round-N`) hold only the quotes that failed and are left out. For every
quote answered in both first answers it counts: the same verdict; for quotes kept in both, the
same set of emotion tags, the same first tag, at least one tag in common, the same category.
Then the same over the quotes whose two answers also copy the same opening words: an answer
whose `opening` names another quote (which the pipeline refuses and asks again) may judge a
different quotation than its number says, so the second set compares like with like.
"""
import json
import sys


def first_answers(path):
    answers = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            item = record.get("item_id") or record.get("itemID")
            if not item or not item.startswith("tag/") or item.count("/") != 1:
                continue
            try:
                quotes = json.loads(record["response"]["content"])["quotes"]
            except (ValueError, KeyError, TypeError):
                continue
            by_number = {}
            for q in quotes:
                by_number.setdefault(q.get("n"), q)
            answers[item] = by_number
    return answers


def opening_key(answer):
    words = "".join(c.lower() if c.isalnum() else " " for c in str(answer.get("opening", ""))).split()
    return " ".join(words[:3])


def compare(a, b, both, same_opening):
    quotes = same_verdict = kept_both = same_tags = same_first = overlap = same_category = 0
    for item in both:
        for n, x in a[item].items():
            y = b[item].get(n)
            if y is None:
                continue
            if same_opening and (not opening_key(x) or opening_key(x) != opening_key(y)):
                continue
            quotes += 1
            if x.get("verdict") == y.get("verdict"):
                same_verdict += 1
            if x.get("verdict") == "keep" and y.get("verdict") == "keep":
                kept_both += 1
                tx, ty = x.get("emotions") or [], y.get("emotions") or []
                same_tags += set(tx) == set(ty)
                same_first += bool(tx and ty and tx[0] == ty[0])
                overlap += bool(set(tx) & set(ty))
                same_category += x.get("category") == y.get("category")

    def share(k, n):
        return f"{k}/{n} = {100.0 * k / n:.1f}%" if n else "n/a"

    label = "with the same opening in both answers" if same_opening else "answered in both first answers"
    print(f"quotes {label}: {quotes}")
    print(f"  same verdict (keep/reject): {share(same_verdict, quotes)}")
    print(f"  kept in both: {kept_both}")
    print(f"    same emotion set: {share(same_tags, kept_both)}")
    print(f"    same first emotion: {share(same_first, kept_both)}")
    print(f"    at least one emotion in common: {share(overlap, kept_both)}")
    print(f"    same category: {share(same_category, kept_both)}")


def main():
    a, b = first_answers(sys.argv[1]), first_answers(sys.argv[2])
    both = sorted(set(a) & set(b))
    print(f"batches in both: {len(both)}")
    compare(a, b, both, same_opening=False)
    compare(a, b, both, same_opening=True)


if __name__ == "__main__":
    main()
