#!/usr/bin/env python3
"""Extracts the formulas of LaTeX documents into a JSONL suite (real-documents.jsonl).

    extract_documents.py OUT.jsonl DOC [DOC ...]      DOC = NAME:GIT_DIR:COMMIT:MAX

For each document (a git repository read at COMMIT with `git show`), every `*.tex`, `*.sty` and
`*.cls` file is read for macro definitions, and the files chosen by CHAPTERS[NAME] for formulas:

  inline   $…$, \\(…\\)                                   display false
  display  $$…$$, \\[…\\]                                  display true
           \\begin{equation|equation*|displaymath}…\\end   the body only
           \\begin{align|align*|gather|gather*|alignat|alignat*}…\\end   kept whole (KaTeX accepts them)
           \\begin{multline|multline*}…\\end               the body wrapped in \\begin{gathered}…\\end{gathered}
           \\begin{eqnarray|eqnarray*}…\\end               the body wrapped in \\begin{array}{rcl}…\\end{array}
           \\begin{flalign|flalign*}…\\end                 rewritten as \\begin{align*}…\\end{align*}
  (KaTeX 0.16 has no multline, eqnarray or flalign; the rewrites keep every token.)

Comments, verbatim/lstlisting/comment environments and \\verb are skipped; `\\$` is text.
Formulas with markup of a source preprocessor (m4_…, __NAME, or outside an environment a `\\\\`
right before a letter, as in $C \\\\propto w$) are skipped.
In every formula \\label{…} and \\index{…} are removed (no meaning outside the document), and in the
rewritten environments also \\nonumber / \\notag.

The document's own macros (\\newcommand, \\renewcommand, \\providecommand, \\DeclareRobustCommand,
\\def, \\let, \\DeclareMathOperator, \\newenvironment anywhere in the repository):
  - "simple" ones are expanded: a definition with no optional argument whose body has no `@`, no
    \\if…, no \\def/\\let/\\newcommand, no `$`, no \\mathchoice, no \\raise…, no command with a
    [keyval] option (\\tcboxmath[…]), no assignment (\\postdisplaypenalty=100) and no `#` beyond its
    declared parameters;
    \\ensuremath is dropped from bodies (KaTeX 0.16 lacks it; in math it is a no-op) and so is
    \\xspace. `\\let\\A\\B` expands when \\B is itself simple or not a document macro.
    \\DeclareMathOperator{\\X}{name} expands to \\operatorname{name} (the * form to \\operatorname*).
    Expansion repeats (at most 10 rounds). Expanded formulas carry "expanded": [names].
  - a formula that still uses any other document macro or environment is skipped.
Formulas are then deduplicated on (whitespace-collapsed tex, display), empty ones dropped, and if a
document gives more than MAX, MAX are kept by a fixed pseudo-random choice (sha1 of the tex), in
document order.
"""
import hashlib
import json
import re
import subprocess
import sys

# The files read for formulas: a list of paths, or a regular expression over the repository's paths.
CHAPTERS = {
    "lm": r"^share/(?!answers/)(?!.*/figs/)[^ ]*\.tex$",
    "diffyqs": ["ch-intro.tex", "ch-first-order-ode.tex", "ch-higher-order-ode.tex", "ch-systems.tex",
                "ch-fourier-and-pde.tex", "ch-eigenvalue-probs.tex", "ch-laplace.tex", "ch-power-ser.tex",
                "ch-nonlin-systems.tex", "ap-linear-algebra.tex", "ap-laplace-list.tex"],
    "hott": ["introduction.tex", "preliminaries.tex", "basics.tex", "logic.tex", "equivalences.tex",
             "induction.tex", "homotopy.tex", "hlevels.tex", "hits.tex", "setmath.tex", "categories.tex",
             "reals.tex", "formal.tex", "symbols.tex", "exercise_solutions.tex"],
}

KEEP_ENVS = {"align", "align*", "gather", "gather*", "alignat", "alignat*"}
BODY_ENVS = {"equation", "equation*", "displaymath"}
REWRITE_ENVS = {
    "multline": ("\\begin{gathered}", "\\end{gathered}"),
    "multline*": ("\\begin{gathered}", "\\end{gathered}"),
    "eqnarray": ("\\begin{array}{rcl}", "\\end{array}"),
    "eqnarray*": ("\\begin{array}{rcl}", "\\end{array}"),
    "flalign": ("\\begin{align*}", "\\end{align*}"),
    "flalign*": ("\\begin{align*}", "\\end{align*}"),
}
SKIP_ENVS = {"verbatim", "verbatim*", "lstlisting", "comment", "minted", "Verbatim"}
MATH_ENVS = KEEP_ENVS | BODY_ENVS | set(REWRITE_ENVS)


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def strip_comments(text):
    out = []
    for line in text.split("\n"):
        i = 0
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] == "%":
                line = line[:i]
                break
            i += 1
        out.append(line)
    return "\n".join(out)


def brace_group(text, i):
    """End index (exclusive) of the brace group starting at text[i] == '{', or -1."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def formulas(text):
    """(tex, display, env, offset) for each formula of a comment-stripped file."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("\\begin{", i):
            m = re.match(r"\\begin\{([A-Za-z]+\*?)\}", text[i:])
            env = m.group(1) if m else None
            if env in SKIP_ENVS or env in MATH_ENVS:
                end_tag = "\\end{%s}" % env
                j = text.find(end_tag, i + m.end())
                if j < 0:
                    return
                if env in MATH_ENVS:
                    body = text[i + m.end():j]
                    if env in KEEP_ENVS:
                        yield text[i:j + len(end_tag)], True, env, i
                    elif env in BODY_ENVS:
                        yield body, True, env, i
                    else:
                        begin, end = REWRITE_ENVS[env]
                        body = re.sub(r"\\(nonumber|notag)\b", "", body)
                        yield begin + body + end, True, env, i
                i = j + len(end_tag)
                continue
        if text.startswith("\\verb", i) and i + 5 < n and not text[i + 5].isalpha():
            delim = text[i + 5] if text[i + 5] != "*" else text[i + 6]
            j = text.find(delim, i + 6 + (text[i + 5] == "*"))
            i = n if j < 0 else j + 1
            continue
        if text.startswith("\\[", i) or text.startswith("\\(", i):
            close = "\\]" if text[i + 1] == "[" else "\\)"
            j = find_unescaped(text, close, i + 2)
            if j < 0:
                return
            yield text[i + 2:j], close == "\\]", None, i
            i = j + 2
            continue
        if c == "\\":
            i += 2
            continue
        if text.startswith("$$", i):
            j = find_unescaped(text, "$$", i + 2)
            if j < 0:
                return
            yield text[i + 2:j], True, None, i
            i = j + 2
            continue
        if c == "$":
            j = find_unescaped(text, "$", i + 1)
            if j < 0:
                return
            yield text[i + 1:j], False, None, i
            i = j + 1
            continue
        i += 1


def find_unescaped(text, token, i):
    while i < len(text):
        if text.startswith(token, i):
            return i
        if text[i] == "\\":
            i += 2
            continue
        i += 1
    return -1


def remove_command_with_arg(tex, name):
    out, i = [], 0
    pattern = re.compile(r"\\%s\s*\{" % name)
    while True:
        m = pattern.search(tex, i)
        if not m:
            out.append(tex[i:])
            return "".join(out)
        end = brace_group(tex, m.end() - 1)
        if end < 0:
            out.append(tex[i:])
            return "".join(out)
        out.append(tex[i:m.start()])
        i = end


# --- the document's macros ---

DEF_PATTERNS = [
    # \newcommand{\X}[n]{body}, \newcommand\X[n]{body}, and friends
    re.compile(r"\\(?:re)?newcommand\*?\s*\{?\s*\\([A-Za-z]+)\s*\}?\s*(\[\d\])?\s*(\[[^\]]*\])?\s*\{"),
    re.compile(r"\\(?:providecommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z]+)\s*\}?\s*(\[\d\])?\s*(\[[^\]]*\])?\s*\{"),
]
DEF_TEX = re.compile(r"\\[egx]?def\s*\\([A-Za-z@]+)([^{]*)\{")
LET = re.compile(r"\\let\s*\\([A-Za-z@]+)\s*=?\s*\\([A-Za-z@]+)")
MATHOP = re.compile(r"\\DeclareMathOperator(\*?)\s*\{\s*\\([A-Za-z]+)\s*\}\s*\{")
NEWENV = re.compile(r"\\(?:re)?newenvironment\s*\{([A-Za-z]+\*?)\}")
# Not simple: TeX programming, text-mode boxes, keyval options, assignments (layout macros).
COMPLEX_BODY = re.compile(r"@|\\if|\\def|\\let|\\newcommand|\\futurelet|\\expandafter|\\csname|\\fi\b"
                          r"|\$|\\mathchoice|\\raise|\\[A-Za-z]+\s*\[|\\[A-Za-z]+\s*=")


def collect_macros(files):
    """(macros, environments): macros maps a name to (nparams, body or None when not simple)."""
    macros, envs = {}, set()
    for text in files:
        text = strip_comments(text)
        for pattern in DEF_PATTERNS:
            for m in pattern.finditer(text):
                end = brace_group(text, m.end() - 1)
                body = text[m.end():end - 1] if end > 0 else None
                nparams = int(m.group(2)[1]) if m.group(2) else 0
                simple = body is not None and m.group(3) is None and not COMPLEX_BODY.search(body) \
                    and not re.search(r"#([%s])" % ("".join(str(k) for k in range(nparams + 1, 10)) or "x"), body)
                macros[m.group(1)] = (nparams, clean_body(body) if simple else None)
        for m in DEF_TEX.finditer(text):
            params = m.group(2).strip()
            end = brace_group(text, m.end() - 1)
            body = text[m.end():end - 1] if end > 0 else None
            simple = params == "" and body is not None and not COMPLEX_BODY.search(body) \
                and "#" not in body and "@" not in m.group(1)
            macros[m.group(1)] = (0, clean_body(body) if simple else None)
        for m in LET.finditer(text):
            macros[m.group(1)] = ("let", m.group(2))
        for m in MATHOP.finditer(text):
            end = brace_group(text, m.end() - 1)
            name = text[m.end():end - 1] if end > 0 else None
            macros[m.group(2)] = (0, "\\operatorname%s{%s}" % (m.group(1), name) if name is not None else None)
        envs.update(NEWENV.findall(text))
    # resolve \let: simple when the target is simple or a standard command
    for name, value in list(macros.items()):
        if value[0] == "let":
            target, seen = value[1], {name}
            while target in macros and macros[target][0] == "let" and target not in seen:
                seen.add(target)
                target = macros[target][1]
            if target in macros:
                macros[name] = macros[target] if macros[target][0] != "let" else (0, None)
            else:
                macros[name] = (0, "\\" + target + " ") if "@" not in target else (0, None)
    return macros, envs


def clean_body(body):
    body = re.sub(r"\\xspace\b", "", body)
    body = re.sub(r"\\ensuremath\b\s*", "", body)
    return body


def read_argument(tex, i):
    """(argument, end) of a macro argument at tex[i:] (skipping spaces), or None."""
    while i < len(tex) and tex[i] in " \t\n":
        i += 1
    if i >= len(tex):
        return None
    if tex[i] == "{":
        end = brace_group(tex, i)
        return (tex[i + 1:end - 1], end) if end > 0 else None
    if tex[i] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
        return m.group(0), i + m.end()
    if tex[i] == "}":
        return None
    return tex[i], i + 1


def substitute(body, args):
    """body with #1… replaced by args; command words stay whole tokens (\\circ#2 with c gives
    \\circ c, not \\circc; #1x with \\alpha gives \\alpha x)."""
    def replace(p):
        k = int(p.group(2))
        if k > len(args):
            return p.group(0)
        command, arg = p.group(1) or "", args[k - 1]
        after = " " if p.group(3) and re.search(r"\\[A-Za-z]+$", arg) else ""
        return command + (" " if command and arg[:1].isalpha() else "") + arg + after
    return re.sub(r"(\\[A-Za-z]+)?#([1-9])(?=([A-Za-z])?)", replace, body)


def expand(tex, macros):
    """(expanded tex, expanded names, remaining document macros)."""
    used = []
    for _ in range(10):
        changed, out, i = False, [], 0
        for m in re.finditer(r"\\([A-Za-z]+)", tex):
            name = m.group(1)
            if m.start() < i or name not in macros or macros[name][1] is None:
                continue
            nparams, body = macros[name]
            end, args, ok = m.end(), [], True
            for _k in range(nparams):
                arg = read_argument(tex, end)
                if arg is None:
                    ok = False
                    break
                args.append(arg[0])
                end = arg[1]
            if not ok:
                continue
            text = substitute(body, args)
            # keep a following letter from gluing onto a body that ends in a command word
            if re.search(r"\\[A-Za-z]+$", text) and end < len(tex) and tex[end].isalpha():
                text += " "
            out.append(tex[i:m.start()])
            out.append(text)
            i = end
            changed = True
            used.append(name)
        out.append(tex[i:])
        tex = "".join(out)
        if not changed:
            break
    remaining = {name for name in re.findall(r"\\([A-Za-z]+)", tex) if name in macros}
    return tex, sorted(set(used)), remaining


def main():
    out_path, docs = sys.argv[1], sys.argv[2:]
    items = []
    for spec in docs:
        name, git_dir, commit, limit = spec.split(":")
        paths = [p for p in git(git_dir, "ls-tree", "-r", "--name-only", commit).split("\n")
                 if p.endswith((".tex", ".sty", ".cls"))]
        sources = {p: git(git_dir, "show", f"{commit}:{p}") for p in paths}
        macros, envs = collect_macros(sources.values())
        seen, doc_items, stats = set(), [], {"found": 0, "document macro": 0, "empty": 0, "duplicate": 0,
                                                 "preprocessor": 0}
        chapters = CHAPTERS[name]
        if isinstance(chapters, str):
            chapters = sorted(p for p in paths if re.match(chapters, p))
        for path in chapters:
            text = strip_comments(sources[path])
            for tex, display, env, offset in formulas(text):
                stats["found"] += 1
                tex = remove_command_with_arg(tex, "label")
                tex = remove_command_with_arg(tex, "index").strip()
                if not tex:
                    stats["empty"] += 1
                    continue
                if "m4_" in tex or "__" in tex or (env is None and re.search(r"\\\\[A-Za-z]", tex)):
                    stats["preprocessor"] += 1
                    continue
                if any(e in envs for e in re.findall(r"\\begin\{([A-Za-z]+\*?)\}", tex)):
                    stats["document macro"] += 1
                    continue
                expanded, used, remaining = expand(tex, macros)
                if remaining:
                    stats["document macro"] += 1
                    continue
                key = (" ".join(expanded.split()), display)
                if key in seen:
                    stats["duplicate"] += 1
                    continue
                seen.add(key)
                item = {"tex": expanded, "display": display, "doc": name, "file": path,
                        "line": text.count("\n", 0, offset) + 1}
                if env:
                    item["env"] = env
                if used:
                    item["expanded"] = used
                doc_items.append(item)
        limit = int(limit)
        if len(doc_items) > limit:
            chosen = sorted(range(len(doc_items)),
                            key=lambda k: hashlib.sha1(doc_items[k]["tex"].encode()).hexdigest())[:limit]
            doc_items = [doc_items[k] for k in sorted(chosen)]
        print(f"{name}: {stats['found']} formulas found, {stats['empty']} empty, "
              f"{stats['preprocessor']} with preprocessor markup, "
              f"{stats['document macro']} with document macros skipped, {stats['duplicate']} duplicates, "
              f"{len(doc_items)} kept ({sum('expanded' in x for x in doc_items)} with macros expanded)",
              file=sys.stderr)
        items.extend(doc_items)
    with open(out_path, "w") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
