#!/usr/bin/env python3
"""The Python peer of the orchestration benchmark: a course's model calls through the `openai`
SDK's AsyncOpenAI, at the same concurrency, against the same mock server.

Usage: orchestration_peer.py --base-url http://127.0.0.1:PORT --requests requests.jsonl [--concurrency 16]

`requests.jsonl` holds one request per line ({"item", "path", "body"}), as the mock recorded them
from Lectern's own run. The peer keeps the course's dependencies (a topic's engagement question
and reinforcement pool wait for its lecture, the bonus question for the engagement question),
sends each body unchanged with its X-Lectern-Item header, and parses structured answers as JSON.
No validation, caching, rendering or bundle: this is the floor any Python pipeline pays.
Prints one JSON object: calls, seconds, cpu_seconds.
"""
import argparse
import asyncio
import json
import resource
import time

from openai import AsyncOpenAI


def dependencies(item):
    stage, _, topic = item.partition("/")
    if stage in ("engagement-question", "reinforcement"):
        return ["lecture/" + topic]
    if stage == "bonus-question":
        return ["engagement-question/" + topic]
    return []


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--requests", required=True)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    requests = {}
    with open(args.requests) as handle:
        for line in handle:
            if line.strip():
                entry = json.loads(line)
                requests.setdefault(entry["item"], json.loads(entry["body"]))

    client = AsyncOpenAI(base_url=args.base_url + "/v1", api_key="peer", max_retries=0, timeout=120)
    limit = asyncio.Semaphore(args.concurrency)
    done = {item: asyncio.Event() for item in requests}

    async def call(item, body):
        for dependency in dependencies(item):
            if dependency in done:
                await done[dependency].wait()
        async with limit:
            answer = await client.chat.completions.create(
                **body, extra_headers={"X-Lectern-Item": item, "X-Lectern-Attempt": "1"})
            if body.get("stream"):
                # Lectern streams (the same bytes on the wire for both): read the stream whole.
                content, finish = "", None
                async for chunk in answer:
                    if chunk.choices:
                        content += chunk.choices[0].delta.content or ""
                        finish = chunk.choices[0].finish_reason or finish
            else:
                content, finish = answer.choices[0].message.content or "", answer.choices[0].finish_reason
        if finish != "stop":
            raise RuntimeError(f"{item}: unexpected finish reason {finish}")
        if "response_format" in body:
            json.loads(content)
        done[item].set()

    start, cpu_before = time.monotonic(), cpu_seconds()
    await asyncio.gather(*(call(item, body) for item, body in requests.items()))
    seconds = time.monotonic() - start
    await client.close()
    print(json.dumps({"client": "openai-python", "calls": len(requests), "seconds": round(seconds, 3),
                      "cpu_seconds": round(cpu_seconds() - cpu_before, 3)}, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
