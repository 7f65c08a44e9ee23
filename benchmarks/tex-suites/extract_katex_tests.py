#!/usr/bin/env python3
"""Extracts katex-tests.jsonl from a KaTeX checkout (a bare git dir is fine).

    extract_katex_tests.py GIT_DIR COMMIT OUT.jsonl

Sources, all read at COMMIT with `git show`:
  - test/katex-spec.js, test/mathml-spec.js, test/unicode-spec.js: every string literal that a test
    expects to parse or build. A literal counts when it is
      * the subject of expect`…` / expect(…) followed by .toParse, .toBuild, .toParseLike,
        .toBuildLike or .toWarn (never when the chain has .not. or .toFailWithParseError);
      * the second side of .toParseLike / .toBuildLike (both sides are expected to parse);
      * the first argument of getParsed(, getBuilt(, getMathML(, parseTree(, renderToString(;
      * a `const NAME = literal;` whose NAME is used in one of the positions above.
    String literals joined by `+` are concatenated; template literals with ${…} are skipped;
    tagged templates (expect`…`, r`…`) are taken raw, as the tests' helpers do.
  - test/screenshotter/ss_data.yaml: every case's `tex` (with its `display` flag); cases that set
    their own `macros` are skipped (they need settings this suite does not carry).
Then: formulas using KaTeX's HTML extensions (\\htmlClass, \\htmlId, \\htmlStyle, \\htmlData) are
dropped; the rest are deduplicated on (tex, display) and kept only when KaTeX itself renders them
(katex-render.js: throwOnError, strict "ignore", trust) — the suite is "what KaTeX accepts".
Spec-file formulas are inline (display false, as the spec's default settings); ss_data cases use
their own display flag.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RENDER = os.path.join(HERE, "..", "tex-coverage", "katex-render.js")
SPEC_FILES = ["test/katex-spec.js", "test/mathml-spec.js", "test/unicode-spec.js"]
POSITIVE_CHAIN = re.compile(r"\s*\.\s*(toParse|toBuild|toParseLike|toBuildLike|toWarn)\b")
ARG_FUNCTIONS = ("getParsed", "getBuilt", "getMathML", "parseTree", "renderToString")
HTML_EXTENSIONS = re.compile(r"\\html(Class|Id|Style|Data)\b")


def git_show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                          check=True, capture_output=True, text=True).stdout


# --- a small JavaScript tokenizer: enough to find string literals and what surrounds them ---

def cook(body, quote):
    """The value of a JS string literal body (escapes resolved)."""
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in simple:
            out.append(simple[n]); i += 2
        elif n == "x":
            out.append(chr(int(body[i + 2:i + 4], 16))); i += 4
        elif n == "u" and body[i + 2] == "{":
            j = body.index("}", i)
            out.append(chr(int(body[i + 3:j], 16))); i = j + 1
        elif n == "u":
            out.append(chr(int(body[i + 2:i + 6], 16))); i += 6
        elif n == "\n":
            i += 2
        else:
            out.append(n); i += 2
    return "".join(out)


def tokens(src):
    """Yields (kind, value, start, end): kind is 'str', 'tpl' (untagged template), 'raw' (tagged
    template; value is the raw text; tag in the token before) or 'tok' for other tokens."""
    i, n = 0, len(src)
    prev_sig = ""  # last significant character, to tell a regex from a division
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
            continue
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
            continue
        if src.startswith("/*", i):
            i = src.find("*/", i + 2) + 2
            continue
        if c in "\"'":
            j = i + 1
            while src[j] != c:
                j += 2 if src[j] == "\\" else 1
            yield ("str", cook(src[i + 1:j], c), i, j + 1)
            i, prev_sig = j + 1, c
            continue
        if c == "`":
            j = i + 1
            while src[j] != "`":
                j += 2 if src[j] == "\\" else 1
            body = src[i + 1:j]
            yield ("tpl", body, i, j + 1)
            i, prev_sig = j + 1, "`"
            continue
        if c == "/" and (prev_sig == "" or prev_sig in "(,=:[!&|?{};+"):
            j, in_class = i + 1, False
            while True:
                if src[j] == "\\":
                    j += 2
                    continue
                if src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                elif src[j] == "/" and not in_class:
                    break
                j += 1
            j += 1
            while j < n and src[j].isalpha():
                j += 1
            yield ("tok", src[i:j], i, j)
            i, prev_sig = j, ")"
            continue
        if c.isalnum() or c in "_$":
            j = i
            while j < n and (src[j].isalnum() or src[j] in "_$"):
                j += 1
            yield ("tok", src[i:j], i, j)
            i, prev_sig = j, "a"
            continue
        yield ("tok", c, i, i + 1)
        i, prev_sig = i + 1, c


def literal_groups(src):
    """Literals (joined across `+`) with their context: (value, tag, before_tokens, after_index)."""
    toks = list(tokens(src))
    groups, k = [], 0
    while k < len(toks):
        kind, value, start, end = toks[k]
        if kind not in ("str", "tpl"):
            k += 1
            continue
        tag = toks[k - 1][1] if k > 0 and toks[k - 1][0] == "tok" and toks[k - 1][3] == start \
            and kind == "tpl" and re.match(r"[A-Za-z_$]", toks[k - 1][1]) else None
        parts, ok, first, part_tag = [], True, k, tag
        while True:
            kind, value, start, end = toks[k]
            if kind == "tpl":
                if "${" in value:
                    ok = False
                parts.append(value if part_tag in ("expect", "r", "toParseLike", "toBuildLike") else cook(value, "`"))
            else:
                parts.append(value)
            if k + 2 < len(toks) and toks[k + 1][1] == "+" and toks[k + 2][0] in ("str", "tpl"):
                k, part_tag = k + 2, None
                continue
            if k + 3 < len(toks) and toks[k + 1][1] == "+" and toks[k + 2][1] == "r" \
                    and toks[k + 3][0] == "tpl" and toks[k + 2][3] == toks[k + 3][2]:
                k, part_tag = k + 3, "r"
                continue
            break
        # the tokens before the literal, without its tag
        before = [t[1] for t in toks[max(0, first - 6):first - (1 if tag else 0)] if t[0] == "tok"]
        groups.append(("".join(parts) if ok else None, tag, before, end))
        k += 1
    return groups


def spec_formulas(src):
    found, var_values = [], {}
    for value, tag, before, end in literal_groups(src):
        if value is None:
            continue
        after = src[end:end + 80]
        if len(before) >= 3 and before[-3] == "const" and before[-1] == "=" and re.match(r"\s*;", after):
            var_values.setdefault(before[-2], []).append(value)
            continue
        positive = False
        if tag == "expect":
            positive = bool(POSITIVE_CHAIN.match(after))
        elif before[-2:] == ["expect", "("] and re.match(r"\s*\)", after):
            positive = bool(POSITIVE_CHAIN.match(after[after.index(")") + 1:]))
        elif tag in ("toParseLike", "toBuildLike") or \
                (len(before) >= 2 and before[-1] == "(" and before[-2] in ("toParseLike", "toBuildLike")):
            positive = True
        elif len(before) >= 2 and before[-1] == "(" and before[-2] in ARG_FUNCTIONS:
            positive = True
        if positive:
            found.append(value)
    # constants used in a positive position
    for name, values in var_values.items():
        pattern = r"expect\s*\(\s*%s\s*\)(?P<chain>\s*\.\s*\w+)|\b(?:%s)\s*\(\s*%s\b" % (
            re.escape(name), "|".join(ARG_FUNCTIONS), re.escape(name))
        for use in re.finditer(pattern, src):
            chain = use.group("chain")
            if chain is None or POSITIVE_CHAIN.match(chain):
                found.extend(values)
                break
    return found


def ss_formulas(text):
    data = yaml.safe_load(text)
    out = []
    for name, case in data.items():
        if isinstance(case, str):
            out.append({"tex": case, "display": False, "case": name})
        elif isinstance(case, dict) and "tex" in case and "macros" not in case:
            out.append({"tex": case["tex"], "display": bool(case.get("display")), "case": name})
    return out


def render(items):
    """KaTeX's verdict on each item, in order (katex-render.js)."""
    with tempfile.TemporaryDirectory() as tmp:
        inp, res = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(inp, "w") as f:
            for item in items:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
        subprocess.run(["node", RENDER, inp, res], check=True, stdout=subprocess.DEVNULL)
        with open(res) as f:
            return [json.loads(line) for line in f]


def main():
    git_dir, commit, out_path = sys.argv[1:4]
    items = []
    for path in SPEC_FILES:
        for tex in spec_formulas(git_show(git_dir, commit, path)):
            items.append({"tex": tex, "display": False, "source": path})
    for item in ss_formulas(git_show(git_dir, commit, "test/screenshotter/ss_data.yaml")):
        items.append({"tex": item["tex"], "display": item["display"],
                      "source": "test/screenshotter/ss_data.yaml#" + item["case"]})
    seen, unique, html_ext = set(), [], 0
    for item in items:
        if HTML_EXTENSIONS.search(item["tex"]):
            html_ext += 1
            continue
        key = (item["tex"], item["display"])
        if key in seen or not item["tex"].strip():
            continue
        seen.add(key)
        unique.append(item)
    rendered = render(unique)
    # The spec renders display-only environments (align, gather, CD, \tag …) with displayMode set.
    display_only = [item for item, r in zip(unique, rendered)
                    if r["katex"] is None and "only in display" in r["katex_error"]]
    for item in display_only:
        item["display"] = True
    display_only = [item for item in display_only if (item["tex"], True) not in seen]
    rendered_display = render(display_only)
    accepted = {id(item) for item, r in zip(unique, rendered) if r["katex"] is not None}
    accepted |= {id(item) for item, r in zip(display_only, rendered_display) if r["katex"] is not None}
    kept = [item for item in unique if id(item) in accepted]
    with open(out_path, "w") as f:
        for item in kept:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"{len(items)} candidates, {html_ext} with HTML extensions dropped, {len(unique)} unique, "
          f"{len(unique) - len(kept)} refused by KaTeX, {len(kept)} kept -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
