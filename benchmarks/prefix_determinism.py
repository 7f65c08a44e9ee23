#!/usr/bin/env python3
"""Does llama-cpp-python's answer to a prompt depend on the request before it? (issue 45)

For pairs of prompts that share a long prefix (a lecture, then another closing line, as a
topic's reinforcement levels do), compare the logits of the first token of prompt B evaluated
on a fresh context with those of B evaluated right after A, when the server reuses A's prefix:

  as shipped   llama-cpp-python's own reuse (the longest common prefix)
  pinned       Lectern's patch (LocalModelServer.prefixPinning): whole batches from token 0

Prints, for each pair and block size, the largest absolute difference of the logits and whether
the first token sampled (seeded) is the same. Run with the model's virtual environment:

  ~/.cache/lectern/local-model/venv/bin/python benchmarks/prefix_determinism.py \
      --model ~/.cache/lectern/local-model/models/<file>.gguf --pinning <file holding the patch>

`--pinning` is the Python of the patch (benchmarks/run-prefix-determinism.sh extracts it from
the Swift source, so the code measured is the code shipped).
"""
import argparse
import glob
import os
import sys
import time

import numpy as np
from llama_cpp import Llama, LogitsProcessorList

HERE = os.path.dirname(os.path.abspath(__file__))
LECTURES = sorted(glob.glob(os.path.join(HERE, "..", "Tests", "LecternCLITests", "Fixtures", "golden", "python-basics", "1.0.0", "lectures", "*.md")))


def chat(system, user):
    return f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"


def pairs():
    system = "You write questions for a beginners' course. Answer with JSON only."
    for path in LECTURES:
        lecture = open(path, encoding="utf-8").read()
        a = chat(system, f"The lecture:\n\n{lecture}\n\nWrite the level-1 question of this topic's reinforcement pool.")
        b = chat(system, f"The lecture:\n\n{lecture}\n\nWrite the level-2 question of this topic's reinforcement pool.")
        yield os.path.basename(path), a, b


def first_logits(llm, tokens, seed):
    captured = []

    def capture(_ids, scores):
        captured.append(np.array(scores, dtype=np.float32, copy=True))
        return scores

    llm.set_seed(seed)
    generator = llm.generate(tokens, temp=0.2, top_k=40, top_p=0.95, logits_processor=LogitsProcessorList([capture]))
    token = next(generator)
    generator.close()
    return captured[0], token


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--pinning", required=True, help="file with the patch's Python (defines _lectern_pin_prefix)")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--n-batch", type=int, nargs="+", default=[512])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--read-speed", action="store_true", help="instead: prompt reading speed at each --n-batch (a lecture twice, fresh each time, best of 2)")
    args = parser.parse_args()

    if args.read_speed:
        text = open(LECTURES[2], encoding="utf-8").read() * 2
        print("| n_batch | prompt tokens | tokens/s read (best of 2) |")
        print("|---|---|---|")
        for n_batch in args.n_batch:
            llm = Llama(model_path=args.model, n_ctx=8192, n_batch=n_batch, n_threads=args.threads, n_threads_batch=args.threads, verbose=False)
            tokens = llm.tokenize(text.encode())
            best = float("inf")
            for _ in range(2):
                llm.reset()
                started = time.monotonic()
                llm.eval(tokens)
                best = min(best, time.monotonic() - started)
            print(f"| {n_batch} | {len(tokens)} | {len(tokens) / best:.1f} |", flush=True)
            del llm
        return 0

    shipped_generate = Llama.generate
    namespace = {}
    exec(open(args.pinning, encoding="utf-8").read(), namespace)

    print(f"| n_batch | pair | prompt tokens (A, B, shared) | as shipped: max abs diff, same first token | pinned: max abs diff, same first token |")
    print("|---|---|---|---|---|")
    for n_batch in args.n_batch:
        llm = Llama(model_path=args.model, n_ctx=8192, n_batch=n_batch, n_threads=args.threads, n_threads_batch=args.threads, verbose=False)
        for name, a, b in list(pairs())[: args.pairs]:
            ta = llm.tokenize(a.encode(), special=True)
            tb = llm.tokenize(b.encode(), special=True)
            shared = 0
            while shared < min(len(ta), len(tb)) and ta[shared] == tb[shared]:
                shared += 1
            row = [str(n_batch), name, f"{len(ta)}, {len(tb)}, {shared}"]
            for pinned in (False, True):
                Llama.generate = shipped_generate
                if pinned:
                    namespace["_lectern_pin_prefix"](Llama)
                llm.reset()
                llm._lectern_whole = 0
                fresh, fresh_token = first_logits(llm, tb, 7)
                llm.reset()
                llm._lectern_whole = 0
                first_logits(llm, ta, 7)
                after, after_token = first_logits(llm, tb, 7)
                diff = float(np.max(np.abs(fresh - after)))
                row.append(f"{diff:.3g}, {'yes' if fresh_token == after_token else 'no'}")
            Llama.generate = shipped_generate
            print("| " + " | ".join(row) + " |", flush=True)
        del llm


if __name__ == "__main__":
    sys.exit(main())
