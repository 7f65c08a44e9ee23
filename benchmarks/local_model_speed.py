#!/usr/bin/env python3
"""Single-stream speed of the installed local model, served the way Lectern serves it.

    benchmarks/run-local-model.sh [model] [runs]

Starts llama-cpp-python's server (same arguments as `lectern`'s local provider), sends a
lecture-like request (free Markdown) and a question-like request (JSON Schema constrained), and
prints generated tokens per second for each: completion tokens ÷ wall time of the request, prompt
reading included, which is what a pipeline item pays; and prompt tokens read per second (a long
prompt, one token written), with what a request sharing its prefix with the one before costs.
These are the speeds the bound of a recorded run divides by (docs/BENCHMARKS.md): generated
tokens at the generation speeds plus prompt tokens at the reading speed.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

MODELS = {
    "qwen2.5-coder-1.5b-instruct": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "smollm2-135m-instruct": "smollm2-135m-instruct-q4_1.gguf",
}


def home():
    if os.environ.get("LECTERN_HOME"):
        return os.environ["LECTERN_HOME"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "lectern")
    return os.path.join(os.path.expanduser("~"), ".cache", "lectern")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, body, timeout=900):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


LECTURE = [
    {"role": "system", "content": "You write clear lectures in Markdown for beginners."},
    {
        "role": "user",
        "content": "Write a short lecture titled 'Repeating Work' on Python for and while loops for adults who have never "
        "programmed: a '# ' title, three '## ' sections, one small code example. About 250 words.",
    },
]
QUESTION = [
    {"role": "system", "content": "You write engagement questions. You answer with JSON only."},
    {"role": "user", "content": "Write one multiple-choice question on Python for loops: the question, its correct answer and three wrong answers, each with feedback, and an explanation."},
]
ANSWER = {"type": "object", "properties": {"text": {"type": "string"}, "feedback": {"type": "string"}}, "required": ["text", "feedback"]}
SCHEMA = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string"},
        "correct_answer": ANSWER,
        "wrong_answers": {"type": "array", "items": ANSWER, "minItems": 3, "maxItems": 3},
        "explanation": {"type": "string"},
    },
    "required": ["prompt", "correct_answer", "wrong_answers", "explanation"],
}


def main():
    model = sys.argv[1] if len(sys.argv) > 1 else "qwen2.5-coder-1.5b-instruct"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    base = os.path.join(home(), "local-model")
    python = os.path.join(base, "venv", "bin", "python")
    gguf = os.path.join(base, "models", MODELS[model])
    if not (os.path.exists(python) and os.path.exists(gguf)):
        sys.exit(f"{model} is not installed under {base}: run 'make model' (scripts/install-local-model.sh {model})")
    threads = str(os.cpu_count() or 2)
    port = free_port()
    log = open(os.path.join(base, "logs", "speed-bench.log"), "w")
    server = subprocess.Popen(
        [python, "-m", "llama_cpp.server", "--model", gguf, "--model_alias", model, "--n_ctx", "8192", "--n_threads", threads,
         "--n_threads_batch", threads, "--logits_all", "false", "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).read()
                break
            except Exception:
                if time.time() > deadline or server.poll() is not None:
                    sys.exit("the model server did not start; see " + log.name)
                time.sleep(0.5)
        print(f"model {model}, {threads} threads, {runs} runs each (first request warms up and is not counted)")
        cases = [
            ("lecture (free Markdown)", {"messages": LECTURE, "max_tokens": 400}),
            ("question (JSON Schema)", {"messages": QUESTION, "max_tokens": 400,
                                        "response_format": {"type": "json_object", "schema": SCHEMA}}),  # as Lectern sends it to llama.cpp
        ]
        post(port, {"model": model, "messages": LECTURE, "max_tokens": 8})
        # Prompt reading: a long prompt (a lecture-sized context, as a question's request carries)
        # with one token to write; a fresh first line each run, so nothing is reused from the
        # previous request. Then the same prompt with only its last line changed: what a request
        # that shares its prefix with the one before costs (llama-cpp-python keeps that prefix).
        context = " ".join(f"Sentence {i} of the lecture explains how a for loop repeats a block of code once per item." for i in range(90))
        rates, reused = [], []
        for run in range(runs):
            messages = [{"role": "system", "content": f"Run {run} at {time.time()}. You write engagement questions."},
                        {"role": "user", "content": context + "\nWrite one question."}]
            began = time.monotonic()
            answer = post(port, {"model": model, "messages": messages, "max_tokens": 1, "temperature": 0})
            elapsed = time.monotonic() - began
            prompt_tokens = answer["usage"]["prompt_tokens"]
            rates.append(prompt_tokens / elapsed)
            messages[-1]["content"] = context + "\nWrite one harder question."
            began = time.monotonic()
            post(port, {"model": model, "messages": messages, "max_tokens": 1, "temperature": 0})
            reused.append(time.monotonic() - began)
        print(f"{'prompt reading':<26} median {statistics.median(rates):5.1f} tokens/s  ({prompt_tokens} prompt tokens; runs: "
              f"{', '.join(f'{r:.1f}' for r in rates)}); the same prompt with its last line changed: median "
              f"{statistics.median(reused):.2f} s (prefix reused)")
        for name, body in cases:
            rates, tokens = [], []
            for run in range(runs):
                began = time.monotonic()
                answer = post(port, dict(body, model=model, temperature=0.3, seed=run + 1))
                elapsed = time.monotonic() - began
                generated = answer["usage"]["completion_tokens"]
                tokens.append(generated)
                rates.append(generated / elapsed)
            print(f"{name:<26} median {statistics.median(rates):5.1f} tokens/s  (runs: {', '.join(f'{r:.1f}' for r in rates)}; "
                  f"tokens: {', '.join(map(str, tokens))})")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
