#!/usr/bin/env python3
"""The Python peer of lectern-bench-http: the same phases through the `openai` SDK's AsyncOpenAI.

Usage: openai_peer.py --base-url http://127.0.0.1:PORT [--concurrency 64] [--duration 10]
                      [--latency-requests 1000] [--latency-concurrency 32] [--latency-ms 200]
Prints one JSON object per phase, in the same shape as `lectern-bench-http run`.
"""
import argparse
import asyncio
import json
import resource
import time

from openai import AsyncOpenAI

MESSAGES = [
    {"role": "system", "content": "You are a patient teacher who writes short, friendly answers for beginners."},
    {"role": "user", "content": "Explain in two sentences what a variable is in Python, with an everyday analogy."},
]


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(client, concurrency, seconds=None, requests=None):
    remaining = [requests if requests is not None else float("inf")]
    deadline = time.monotonic() + seconds if seconds is not None else None

    async def worker():
        done = 0
        while remaining[0] > 0:
            remaining[0] -= 1
            if deadline is not None and time.monotonic() >= deadline:
                break
            answer = await client.chat.completions.create(
                model="bench-model", messages=MESSAGES, temperature=0.2, max_tokens=64)
            if answer.choices[0].finish_reason != "stop":
                raise RuntimeError("unexpected answer")
            done += 1
        return done

    start, cpu_before = time.monotonic(), cpu_seconds()
    counts = await asyncio.gather(*(worker() for _ in range(concurrency)))
    return sum(counts), time.monotonic() - start, cpu_seconds() - cpu_before


def report(phase, concurrency, measurement, **extra):
    requests, seconds, cpu = measurement
    row = {
        "client": "openai-python", "phase": phase, "concurrency": concurrency, "requests": requests,
        "seconds": round(seconds, 3), "rps": round(requests / seconds, 3), "cpu_seconds": round(cpu, 3),
        "cpu_ms_per_request": round(cpu * 1000 / max(1, requests), 3),
    }
    row.update({key: round(value, 3) for key, value in extra.items()})
    print(json.dumps(row, sort_keys=True, separators=(",", ":")), flush=True)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--latency-requests", type=int, default=1000)
    parser.add_argument("--latency-concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=int, default=200)
    args = parser.parse_args()

    client = AsyncOpenAI(base_url=args.base_url + "/v1", api_key="bench", max_retries=0, timeout=60)
    slow = AsyncOpenAI(base_url=f"{args.base_url}/delay/{args.latency_ms}/v1", api_key="bench", max_retries=0, timeout=60)

    await measure(client, args.concurrency, requests=500)  # warm-up
    report("provider_throughput", args.concurrency, await measure(client, args.concurrency, seconds=args.duration))
    latency = await measure(slow, args.latency_concurrency, requests=args.latency_requests)
    ideal = args.latency_requests / args.latency_concurrency * args.latency_ms / 1000
    report("latency_bound", args.latency_concurrency, latency, ideal_seconds=ideal, ratio_to_ideal=latency[1] / ideal)
    await client.close()
    await slow.close()


if __name__ == "__main__":
    asyncio.run(main())
