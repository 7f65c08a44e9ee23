#!/usr/bin/env python3
"""How often `lectern check` refuses Python that Python accepts, and how often it catches what
Python refuses (CodeStructure, the check on lectures and on what questions assert).

    benchmarks/code_structure.py [LECTERN] [PYTHON_LIB_DIR] [LIMIT]

Snippets are the top-level functions and classes of the Python standard library's modules (real
code, each of which compiles on its own). Each becomes a lecture of a synthetic course.json,
shown in a ```python block, and `lectern check` reads them all. Then a copy of each eligible
snippet is broken in one of the ways the check targets, the way a small model breaks code, and
kept only if `compile()` refuses it:

  colon    a compound header (if/for/while/def/class/elif/else/try/with) loses its colon
  elif     the first `if` of a chain is written `elif` (an elif with no if before it)
  else2    an `elif` placed after its chain's `else`
  body     a header's first body line dedented to the header (no indented block)
  indent   a plain statement indented one level deeper than the one before it

Reported: snippets refused by the check that Python accepts (false refusals), and per kind of
defect, how many broken snippets the check refuses. Nothing here runs the code.
"""
import ast
import json
import os
import random
import subprocess
import sys
import tempfile

LECTERN = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/lectern"
LIB = sys.argv[2] if len(sys.argv) > 2 else "/usr/lib/python3.11"
LIMIT = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
HEADERS = ("if ", "for ", "while ", "def ", "class ", "elif ", "else", "try", "with ", "except", "finally")


def compiles(code):
    try:
        compile(code, "<snippet>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


def snippets():
    found = []
    for name in sorted(os.listdir(LIB)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(LIB, name)
        try:
            source = open(path, encoding="utf-8").read()
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                code = ast.get_source_segment(source, node)
                if code and 3 <= code.count("\n") <= 60 and "```" not in code and compiles(code):
                    found.append((f"{name}:{node.name}", code))
    return found


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def mutate(code, kind, rng):
    lines = code.split("\n")
    candidates = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if kind == "colon" and stripped.startswith(HEADERS) and stripped.endswith(":") and "#" not in stripped:
            candidates.append(i)
        elif kind == "elif" and stripped.startswith("if ") and stripped.endswith(":"):
            candidates.append(i)
        elif kind == "else2" and stripped.startswith("elif ") and stripped.endswith(":"):
            candidates.append(i)
        elif kind == "body" and stripped.endswith(":") and stripped.startswith(HEADERS) and i + 1 < len(lines):
            if indent_of(lines[i + 1]) > indent_of(line) and lines[i + 1].strip():
                candidates.append(i)
        elif kind == "indent" and i > 0 and stripped and not stripped.startswith(("#", "@", ")", "]", "}")):
            previous = lines[i - 1].rstrip()
            if previous.strip() and not previous.endswith((":", "\\", ",", "(", "[", "{")) and indent_of(previous) == indent_of(line):
                candidates.append(i)
    rng.shuffle(candidates)
    for i in candidates:
        new = list(lines)
        line = new[i]
        pad = " " * indent_of(line)
        if kind == "colon":
            new[i] = line.rstrip()[:-1]
        elif kind == "elif":
            new[i] = pad + "elif " + line.strip()[3:]
        elif kind == "else2":
            # Move this elif clause (header and body) after the chain's else clause, if it has one.
            end = i + 1
            while end < len(new) and (not new[end].strip() or indent_of(new[end]) > indent_of(line)):
                end += 1
            if end >= len(new) or not new[end].strip().startswith("else") or indent_of(new[end]) != indent_of(line):
                continue
            after = end + 1
            while after < len(new) and (not new[after].strip() or indent_of(new[after]) > indent_of(line)):
                after += 1
            new = new[:i] + new[end:after] + new[i:end] + new[after:]
        elif kind == "body":
            new[i + 1] = pad + new[i + 1].strip()
        elif kind == "indent":
            new[i] = "    " + line
        mutated = "\n".join(new)
        if not compiles(mutated):
            return mutated
    return None


def main():
    rng = random.Random(17)
    pool = snippets()
    rng.shuffle(pool)
    pool = pool[:LIMIT]
    kinds = ["colon", "elif", "else2", "body", "indent"]
    cases = [(f"ok-{i:05d}", name, code, None) for i, (name, code) in enumerate(pool)]
    for kind in kinds:
        made = 0
        for i, (name, code) in enumerate(pool):
            broken = mutate(code, kind, rng)
            if broken is not None:
                cases.append((f"{kind}-{i:05d}", name, broken, kind))
                made += 1
            if made >= 300:
                break
    work = tempfile.mkdtemp()
    os.makedirs(os.path.join(work, "lectures"))
    topics = []
    for case_id, _, code, _ in cases:
        path = f"lectures/{case_id}.md"
        with open(os.path.join(work, path), "w", encoding="utf-8") as f:
            f.write(f"# Reading code\n\n## The example\n\nHere is the code from the standard library:\n\n```python\n{code}\n```\n")
        topics.append({"id": case_id, "title": "Reading code", "objective": "Read code.",
                       "lecture": {"topic_id": case_id, "path": path, "word_count": 100, "reading_minutes": 1}})
    course = {"format_version": 1, "id": "bench", "version": "1.0.0", "language": "en", "title": "Bench",
              "description": "Bench.", "audience": "all", "tone": {"presets": [], "instruction": ""},
              "subjects": [{"id": "s01", "title": "Code", "topics": topics}]}
    with open(os.path.join(work, "course.json"), "w", encoding="utf-8") as f:
        json.dump(course, f)
    result = subprocess.run([LECTERN, "check", os.path.join(work, "course.json"), "--json"], capture_output=True, text=True)
    report = json.loads(result.stdout)
    refused = {flag["id"].split("/", 1)[1] for flag in report["flagged"]
               if any("the Python code does not run as written" in p for p in flag["problems"])}
    ok = [c for c in cases if c[3] is None]
    false = [c for c in ok if c[0] in refused]
    print(f"snippets from {LIB}: {len(ok)} that compile; refused by the check: {len(false)}")
    for case_id, name, _, _ in false[:10]:
        print(f"  false refusal: {name} ({case_id})")
    for kind in kinds:
        broken = [c for c in cases if c[3] == kind]
        caught = [c for c in broken if c[0] in refused]
        print(f"{kind:7s} {len(broken):4d} broken (compile() refuses each), {len(caught):4d} refused by the check")
        for case_id, name, _, _ in [c for c in broken if c[0] not in refused][:3]:
            print(f"  missed: {name} ({case_id})")
    print(f"(course and lectures in {work})")


if __name__ == "__main__":
    main()
