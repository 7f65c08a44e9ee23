#!/usr/bin/env python3
"""Scores one TeX suite: TeXMath's output (lectern-bench-tex) against KaTeX's (katex-render.js).

    compare.py score --name NAME --suite SUITE.jsonl --ours OURS.jsonl --katex KATEX.jsonl \\
                     --schema mathml4-core.rng --out DIR
    compare.py table DIR [DIR ...]          (prints the table of several scored suites, writes nothing)
    compare.py combine OUT.json DIR [DIR ...]
    compare.py report DIR [DIR ...]         (Markdown: table, constructs, top warnings, token differences)

`score` writes DIR/summary.json and DIR/failures.jsonl (one line per formula that fails anything)
and prints one table row. Measures, per suite of n formulas:

  clean     TeXMath gave no warning (so no <merror>).
  valid     TeXMath's <math> validates against the MathML Core RelaxNG schema (xmllint, all files
            of a suite in a few processes).
  katex ok  KaTeX 0.16 renders the formula (throwOnError; a parse error or an undefined command
            is "KaTeX refuses"); such formulas are left out of the token measure.
  tokens    among the katex-ok formulas, TeXMath's leaf tokens equal KaTeX's.
  silent    formulas TeXMath converts without a warning, KaTeX renders, and whose tokens differ
            (the differences nobody is told about).
  (summary.json also has katex_valid_pct: how much of KaTeX's own output is valid MathML Core —
  context for the valid column; and, for a suite whose lines carry "doc", the same per document.)

Leaf tokens (the same function is applied to both outputs):
  1. Only the semantics' first child is read (the annotation is ignored); a <math> without
     <semantics> is read whole. Subtrees under <mphantom> are skipped (they are invisible).
  2. Leaves are the token elements mi, mn, mo, mtext and ms, in document order; a leaf's text is
     its character data. mspace, and every layout element, contributes nothing: spacing and
     structure (mfrac vs. \\over …, msub vs. munder) are not measured here. KaTeX 0.16 wraps whole
     subtrees in <mi>/<mo> (\\mathord, \\overset, \\operatorname, \\vcentcolon): a token element
     with element children is read as a container, not as a leaf.
  3. Accents: a leaf that is the only leaf of a script of mover/munder/munderover (an accent
     position) and is one accent character, in any of its spellings, becomes one combining mark:
     vec ⃗/→, hat ^/ˆ, check ˇ, tilde ~/˜, acute ´/ˊ, grave `/ˋ, breve ˘, dot ˙, ddot ¨, ring ˚,
     bar/overline/underline ¯/ˉ/‾/_/◌̄/◌̅/◌̲ (all one mark), over/underbrace ⏞/︷, ⏟/︸ …
  4. Each text is NFKC-normalised: mathematical alphanumeric symbols become their base letter or
     digit (𝐱 = mathvariant="bold" x, ℝ = double-struck R), ″ becomes ′′, … becomes ...
  5. Removed from every leaf: invisible operators U+2061–U+2064, zero-width space U+200B,
     variation selectors U+FE00–U+FE0F (a glyph choice, e.g. \\varsubsetneq), and all whitespace
     (NBSP from ~ or \\ , spaces inside \\text{}): spacing is not measured, just as mspace is not.
     Leaves left empty are dropped.
  6. Same glyph, other code point: KaTeX draws | and \\| with U+2223 ∣ and U+2225 ∥ (read as | and ‖,
     on both sides, so \\mid and | are not told apart), and writes the Greek capitals that look Latin
     (Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ, also under accents: Ϋ) as Latin letters (read as Latin on both
     sides).
  7. \\not: a leaf that is only a negation slash (⧸ U+29F8 or U+0338) is put onto the next leaf as
     U+0338 (so ⧸ then a equals a̸, and ⧸ then = equals ≠).
  8. The leaves' texts, in order, are split into characters — a base with the combining marks after
     it is one character, also when the marks are in a leaf of their own (x then ⃗ is x⃗, A then ◌̀
     is À, NFC-composed); ı/ȷ under an accent above count as i/j (KaTeX writes \\'\\i as ı́,
     TeXMath as í). The tokens compared are these characters.
     So how characters are grouped into leaves never matters: digits in one <mn> or several
     (and a period inside <mn> or not), \\mathrm{abc} as one <mi> or three, \\lim as <mo> or <mi>,
     f'' as ″ or ′ ′, \\text{ab} as one <mtext> or two. Which characters, in which order, does.
     Consequently upright vs. italic (<mi>xy</mi> vs. <mi>x</mi><mi>y</mi>), like every mathvariant,
     is not measured.
"""
import argparse
import collections
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
import xml.etree.ElementTree as ET

MATHML = "{http://www.w3.org/1998/Math/MathML}"
LEAF_TAGS = {"mi", "mn", "mo", "mtext", "ms"}

# Accent glyphs, read only in an accent position (a script of mover/munder/munderover that holds a
# single leaf, possibly inside mrow/mstyle): every spelling becomes one combining mark.
ACCENTS = {}
for canonical, spellings in {
    "\u20d7": "\u20d7\u2192\u20ef",              # vec, overrightarrow
    "\u20d6": "\u20d6\u2190\u20ee",              # overleftarrow
    "\u20e1": "\u20e1\u2194",                     # overleftrightarrow
    "\u0302": "^\u02c6\u0302",                    # hat
    "\u030c": "\u02c7\u030c",                     # check
    "\u0303": "~\u02dc\u0303",                    # tilde
    "\u0301": "\u00b4\u02ca\u0301",               # acute
    "\u0300": "`\u02cb\u0300",                    # grave
    "\u0306": "\u02d8\u0306",                     # breve
    "\u0307": "\u02d9\u0307",                     # dot
    "\u0308": "\u00a8\u0308",                     # ddot
    "\u030a": "\u02da\u030a",                     # ring
    "\u0304": "\u00af\u02c9\u203e\u0304\u0305_\u0332",  # bar, overline, underline, underbar
    "\u23de": "\u23de\ufe37",                     # overbrace
    "\u23df": "\u23df\ufe38",                     # underbrace
}.items():
    for ch in spellings:
        ACCENTS[ch] = canonical

GLYPHS = {"\u2223": "|", "\u2225": "\u2016"}
# Greek capitals drawn like Latin ones: KaTeX writes Latin (its \\Alpha is A), TeXMath keeps Greek.
GLYPHS.update(zip("\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
                  "ABEZHIKMNOPTYX"))
DROP = re.compile("[\u2061-\u2064\u200b\ufe00-\ufe0f\\s]+")
NOT_SIGNS = {"\u29f8", "\u0338"}
SCRIPTED = {"mover", "munder", "munderover"}
TRANSPARENT = {"mrow", "mstyle", "mpadded"}
SKIPPED = {"mphantom", "annotation", "annotation-xml"}


def raw_leaves(el, slot, out):
    """(text, in an accent position) of the leaves under el, in document order."""
    tag = el.tag.replace(MATHML, "")
    if tag in SKIPPED:
        return
    if tag in LEAF_TAGS and not len(el):
        out.append((el.text or "", slot))
        return
    # KaTeX 0.16 wraps whole subtrees in <mi>/<mo> (\mathord, \overset, \operatorname, \vcentcolon):
    # a token element with element children is read as a container.
    for i, child in enumerate(el):
        accent = tag in SCRIPTED and i >= 1 and leaf_count(child) == 1
        raw_leaves(child, accent or (slot and tag in TRANSPARENT | LEAF_TAGS), out)


def leaf_count(el):
    tag = el.tag.replace(MATHML, "")
    if tag in SKIPPED:
        return 0
    if tag in LEAF_TAGS and not len(el):
        return 1
    return sum(leaf_count(child) for child in el)


def leaves(mathml):
    """The normalised leaf tokens of a <math> string (see the module notes), or None if unparsable."""
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError:
        return None
    semantics = root.find(MATHML + "semantics")
    raw = []
    if semantics is not None and len(semantics):
        raw_leaves(semantics[0], False, raw)
    else:
        for child in root:
            raw_leaves(child, False, raw)
    texts = []
    for text, slot in raw:
        text = DROP.sub("", text)
        if slot and len(text) == 1 and text in ACCENTS:
            text = ACCENTS[text]
        text = DROP.sub("", unicodedata.normalize("NFKC", text))
        text = unicodedata.normalize("NFC", "".join(GLYPHS.get(c, c) for c in unicodedata.normalize("NFD", text)))
        if text:
            texts.append(text)
    # \not: a negation slash in a leaf of its own (⧸ or U+0338) goes onto the leaf after it.
    merged = []
    for text in texts:
        if merged and merged[-1] == "\u0338" and text not in NOT_SIGNS:
            merged[-1] = text + "\u0338"
        else:
            merged.append("\u0338" if text in NOT_SIGNS else text)
    # Characters: a base with the combining marks after it is one, also across leaves (an accent
    # in its own leaf, a trailing \not); a dotless ı/ȷ under an accent above is an i/j.
    out = []
    for text in merged:
        for c in text:
            if out and unicodedata.combining(c):
                base = out[-1]
                if base[-1] in "\u0131\u0237" and unicodedata.combining(c) == 230:
                    base = base[:-1] + ("i" if base[-1] == "\u0131" else "j")
                out[-1] = unicodedata.normalize("NFC", base + c)
            else:
                out.append(c)
    return out


def validate(mathmls, schema):
    """For each string: None when it validates, else the first error line."""
    results = [None] * len(mathmls)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, m in enumerate(mathmls):
            path = os.path.join(tmp, "%06d.xml" % i)
            with open(path, "w", encoding="utf-8") as f:
                f.write(m)
            paths.append(path)
        errors = collections.defaultdict(list)
        verdict = {}
        for start in range(0, len(paths), 2000):
            chunk = paths[start:start + 2000]
            proc = subprocess.run(["xmllint", "--noout", "--relaxng", schema, *chunk],
                                  capture_output=True, text=True)
            for line in proc.stderr.splitlines():
                m = re.match(r"(%s/\d+\.xml)(:\d+:)?\s*(.*)" % re.escape(tmp), line)
                if not m:
                    continue
                path, rest = m.group(1), m.group(3)
                if rest == "validates":
                    verdict[path] = True
                elif rest.startswith("fails to validate"):
                    verdict[path] = False
                else:
                    errors[path].append(rest)
        for i, path in enumerate(paths):
            if verdict.get(path) is not True:
                results[i] = (errors[path][0] if errors[path] else "fails to validate")[:300]
    return results


def edits(ours, theirs):
    """The differing stretches of two token lists: ['ours → katex', …]."""
    sm = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    return ["%s → %s" % ("".join(ours[a1:a2]) or "∅", "".join(theirs[b1:b2]) or "∅")
            for op, a1, a2, b1, b2 in sm.get_opcodes() if op != "equal"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def pct(a, b):
    return round(100.0 * a / b, 1) if b else None


def score(args):
    suite, ours, katex = load(args.suite), load(args.ours), load(args.katex)
    if not (len(suite) == len(ours) == len(katex)):
        sys.exit("compare.py: %s: %d formulas, %d TeXMath results, %d KaTeX results — they must match"
                 % (args.name, len(suite), len(ours), len(katex)))
    invalid = validate([o["mathml"] for o in ours], args.schema)
    katex_invalid = validate([k["katex"] for k in katex if k["katex"] is not None], args.schema)
    katex_invalid_iter = iter(katex_invalid)
    records = []
    for i, (item, o, k) in enumerate(zip(suite, ours, katex)):
        r = {"index": i, "tex": item["tex"], "display": o["display"]}
        for key in ("source", "doc", "file", "line", "id", "case"):
            if key in item:
                r[key] = item[key]
        if o["warnings"]:
            r["warnings"] = o["warnings"]
        if invalid[i] is not None:
            r["invalid"] = invalid[i]
        if k["katex"] is None:
            r["katex_error"] = k["katex_error"]
        else:
            r["katex_valid"] = next(katex_invalid_iter) is None
            mine, theirs = leaves(o["mathml"]), leaves(k["katex"])
            r["tokens_equal"] = mine is not None and mine == theirs
            if not r["tokens_equal"]:
                r["ours"], r["katex"] = mine, theirs
                r["edits"] = edits(mine or [], theirs or [])
                r["ours_mathml"], r["katex_mathml"] = o["mathml"], k["katex"]
        records.append(r)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "failures.jsonl"), "w", encoding="utf-8") as failures:
        for r in records:
            if "warnings" in r or "invalid" in r or r.get("tokens_equal") is False:
                out = {key: value for key, value in r.items() if key not in ("tokens_equal", "katex_valid")}
                failures.write(json.dumps(out, ensure_ascii=False) + "\n")
    summary = tally(records, args.name)
    summary["path"] = args.suite
    docs = sorted({r["doc"] for r in records if "doc" in r})
    if len(docs) > 1:
        summary["groups"] = [tally([r for r in records if r.get("doc") == d], "%s[%s]" % (args.name, d), brief=True)
                             for d in docs]
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=1)
    print_table([summary], header=False)


def tally(records, name, brief=False):
    n = len(records)
    ok = [r for r in records if "katex_error" not in r]
    clean = sum("warnings" not in r for r in records)
    summary = {
        "suite": name, "n": n,
        "clean": clean, "clean_pct": pct(clean, n),
        "valid": sum("invalid" not in r for r in records),
        "katex_ok": len(ok), "katex_refused": n - len(ok),
        "clean_among_katex_ok_pct": pct(sum("warnings" not in r for r in ok), len(ok)),
        "tokens_equal": sum(r["tokens_equal"] for r in ok),
        "silent_mismatches": sum(not r["tokens_equal"] and "warnings" not in r for r in ok),
        "katex_valid_pct": pct(sum(r["katex_valid"] for r in ok), len(ok)),
    }
    summary["valid_pct"] = pct(summary["valid"], n)
    summary["tokens_equal_pct"] = pct(summary["tokens_equal"], len(ok))
    if brief:
        return summary
    warning_counts, warning_example = collections.Counter(), {}
    refusals, refusal_example = collections.Counter(), {}
    edit_counts = {True: collections.Counter(), False: collections.Counter()}
    edit_examples = collections.defaultdict(list)
    for r in records:
        for w in dict.fromkeys(r.get("warnings", [])):
            warning_counts[w] += 1
            warning_example.setdefault(w, r["tex"])
        if "katex_error" in r:
            reason = re.sub(r"( at position \d+| at end of input).*", "", r["katex_error"])
            refusals[reason] += 1
            refusal_example.setdefault(reason, r["tex"])
        for e in dict.fromkeys(r.get("edits", [])):
            edit_counts["warnings" not in r][e] += 1
            if len(edit_examples[e]) < 3:
                edit_examples[e].append(r["tex"])
    summary["warnings"] = [{"warning": w, "count": c, "example": warning_example[w]}
                           for w, c in warning_counts.most_common()]
    summary["katex_refusals"] = [{"reason": x, "count": c, "example": refusal_example[x]}
                                 for x, c in refusals.most_common()]
    summary["token_edits_clean"] = [{"edit": e, "count": c, "examples": edit_examples[e]}
                                    for e, c in edit_counts[True].most_common(300)]
    summary["token_edits_with_warnings"] = [{"edit": e, "count": c, "examples": edit_examples[e]}
                                            for e, c in edit_counts[False].most_common(300)]
    return summary


def print_table(summaries, header=True):
    if header:
        print("%-28s %6s %8s %8s %10s %10s %8s %8s" % ("suite", "n", "clean%", "valid%", "katex ok",
                                                      "clean%|ok", "tokens%", "silent"))
    rows = []
    for s in summaries:
        rows.append(s)
        rows.extend(s.get("groups", []))
    for s in rows:
        f = lambda v: "—" if v is None else "%.1f" % v
        print("%-28s %6d %8s %8s %10d %10s %8s %8d" % (s["suite"], s["n"], f(s["clean_pct"]), f(s["valid_pct"]),
                                                      s["katex_ok"], f(s["clean_among_katex_ok_pct"]),
                                                      f(s["tokens_equal_pct"]), s["silent_mismatches"]))


# Constructs for the report: a formula "has" a construct when its TeX matches the pattern.
CONSTRUCTS = [
    ("\\over family (\\over \\atop \\choose \\brace \\brack \\above)", r"\\(over|atop|choose|brace|brack|above)(?![a-zA-Z])"),
    ("\\frac \\dfrac \\tfrac \\cfrac \\binom \\genfrac", r"\\([dtc]?frac|[dt]?binom|genfrac)(?![a-zA-Z])"),
    ("\\not and negated relations (\\neq \\notin \\nleq …)", r"\\(not|notin|n(eq|e|less|gtr|[lg]eqq?|[lg]eqslant|sim|cong|mid|parallel|su[bp]seteqq?|prec|succ|preceq|succeq|[vV][dD]ash|triangleleft|triangleright|trianglelefteq|trianglerighteq|shortmid|shortparallel|exists))(?![a-zA-Z])"),
    ("primes ' and \\prime", r"'|\\prime(?![a-zA-Z])"),
    ("\\operatorname, \\DeclareMathOperator, \\sin-like", r"\\(operatorname|DeclareMathOperator|sin|cos|tan|log|ln|exp|lim|max|min|sup|inf|det|gcd|arg|deg|dim|ker|Pr)(?![a-zA-Z])"),
    ("accents (\\hat \\bar \\vec \\dot \\tilde \\overline \\underline …)", r"\\(hat|check|tilde|acute|grave|dot|ddot|dddot|breve|bar|vec|widehat|widetilde|widecheck|overline|underline|overrightarrow|overleftarrow|underbar|mathring)(?![a-zA-Z])|\\[`'^\"~=.]|\\[Hrvuc](?![a-zA-Z])"),
    ("over/under scripts (\\overset \\underset \\stackrel \\overbrace \\underbrace)", r"\\(overset|underset|stackrel|overbrace|underbrace|xrightarrow|xleftarrow)(?![a-zA-Z])"),
    ("spacing (\\, \\; \\quad \\! \\kern \\hspace \\mkern ~)", r"\\[,;:!> ]|\\(quad|qquad|kern|mkern|hspace|hskip|mspace|enspace|thinspace)(?![a-zA-Z])|~"),
    ("text (\\text \\mathrm \\textrm \\mbox \\textbf …)", r"\\(text[a-z]*|mbox|hbox|mathrm|textup)(?![a-zA-Z])"),
    ("font commands (\\mathbf \\mathbb \\mathcal \\boldsymbol \\rm \\bf …)", r"\\(math(bf|bb|cal|frak|scr|sf|tt|it|normal)|boldsymbol|bm|pmb|rm|bf|it|sf|tt|cal)(?![a-zA-Z])"),
    ("\\left \\right \\middle \\big…", r"\\(left|right|middle|[bB]igg?[lrm]?)(?![a-zA-Z])"),
    ("environments (\\begin{…})", r"\\begin\{"),
    ("\\color \\textcolor \\colorbox", r"\\(color|textcolor|colorbox|fcolorbox)(?![a-zA-Z])"),
    ("macros (\\def \\newcommand \\let …)", r"\\([gex]?def|newcommand|renewcommand|providecommand|let|global)(?![a-zA-Z])"),
    ("\\tag", r"\\tag(?![a-zA-Z])"),
    ("\\dots family", r"\\([lcvda]?dots[bcimo]?|dotso|dotsc)(?![a-zA-Z])"),
]


def load_records(d):
    """Every formula of a scored suite: its TeX, clean?, katex ok?, tokens equal?"""
    with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
        path = json.load(f)["path"]
    suite, ours, katex = load(path), load(os.path.join(d, "ours.jsonl")), load(os.path.join(d, "katex.jsonl"))
    failures = {}
    with open(os.path.join(d, "failures.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            failures[r["index"]] = r
    out = []
    for i, (item, o, k) in enumerate(zip(suite, ours, katex)):
        fr = failures.get(i, {})
        out.append({"tex": item["tex"], "clean": not o["warnings"], "katex_ok": k["katex"] is not None,
                    "tokens_equal": k["katex"] is not None and "edits" not in fr, "failure": fr})
    return out


def report(dirs, top_warnings=40, top_edits=40):
    """Markdown: the table, constructs, warnings and token differences of scored suites."""
    summaries = read_summaries(dirs)
    lines = ["| suite | n | clean % | valid MathML Core % | KaTeX renders | clean % of those | tokens equal % | silent mismatches |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summaries:
        for row in [s] + s.get("groups", []):
            lines.append("| %s | %d | %.1f | %.1f | %d | %s | %s | %d |" % (
                row["suite"], row["n"], row["clean_pct"], row["valid_pct"], row["katex_ok"],
                "—" if row["clean_among_katex_ok_pct"] is None else "%.1f" % row["clean_among_katex_ok_pct"],
                "—" if row["tokens_equal_pct"] is None else "%.1f" % row["tokens_equal_pct"], row["silent_mismatches"]))
    records = [(os.path.basename(d.rstrip("/")), r) for d in dirs for r in load_records(d)]
    lines += ["", "### Constructs (all suites; among formulas KaTeX renders)", "",
              "| construct | formulas | clean % | tokens equal % | tokens differ, no warning |", "|---|---:|---:|---:|---:|"]
    for label, pattern in CONSTRUCTS:
        rx = re.compile(pattern)
        hit = [r for _, r in records if r["katex_ok"] and rx.search(r["tex"])]
        if hit:
            lines.append("| %s | %d | %.1f | %.1f | %d |" % (
                label.replace("|", "\\|"), len(hit), pct(sum(r["clean"] for r in hit), len(hit)),
                pct(sum(r["tokens_equal"] for r in hit), len(hit)),
                sum(r["clean"] and not r["tokens_equal"] for r in hit)))
    counts, per_suite, example = collections.Counter(), collections.defaultdict(collections.Counter), {}
    for s in summaries:
        for w in s["warnings"]:
            counts[w["warning"]] += w["count"]
            per_suite[w["warning"]][s["suite"]] += w["count"]
            example.setdefault(w["warning"], w["example"])
    lines += ["", "### Warnings (formulas with the warning, all suites)", "",
              "| # | warning | formulas | suites | example |", "|---:|---|---:|---|---|"]
    for rank, (w, c) in enumerate(counts.most_common(top_warnings), 1):
        lines.append("| %d | %s | %d | %s | %s |" % (rank, md_code(w), c,
                     ", ".join("%s %d" % kv for kv in per_suite[w].most_common()), md_code(short(example[w]))))
    rest = counts.most_common()[top_warnings:]
    if rest:
        lines.append("")
        lines.append("%d more warnings in %d formula-warnings: %s" % (
            len(rest), sum(c for _, c in rest), ", ".join(md_code(w.replace("Unknown command ", "")) for w, _ in rest)))
    edits_clean = collections.Counter()
    examples = collections.defaultdict(list)
    for suite, r in records:
        fr = r["failure"]
        if r["clean"] and "edits" in fr:
            for e in dict.fromkeys(fr["edits"]):
                edits_clean[e] += 1
                if len(examples[e]) < 2:
                    examples[e].append((suite, fr["tex"]))
    lines += ["", "### Token differences in formulas converted without warning (ours → KaTeX)", "",
              "| difference | formulas | example (suite) |", "|---|---:|---|"]
    for e, c in edits_clean.most_common(top_edits):
        suite, tex = examples[e][0]
        lines.append("| %s | %d | %s (%s) |" % (md_code(e), c, md_code(short(tex)), suite))
    return "\n".join(lines)


def short(tex, limit=90):
    tex = " ".join(tex.split())
    return tex if len(tex) <= limit else tex[:limit - 1] + "…"


def md_code(text):
    text = text.replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return "%s%s%s%s%s" % (fence, pad, text, pad, fence)


def read_summaries(dirs):
    out = []
    for d in dirs:
        with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
            out.append(json.load(f))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score")
    for name in ("name", "suite", "ours", "katex", "schema", "out"):
        s.add_argument("--" + name, required=True)
    t = sub.add_parser("table")
    t.add_argument("dirs", nargs="+")
    rp = sub.add_parser("report")
    rp.add_argument("dirs", nargs="+")
    c = sub.add_parser("combine")
    c.add_argument("output")
    c.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    if args.command == "score":
        score(args)
    elif args.command == "table":
        print_table(read_summaries(args.dirs))
    elif args.command == "report":
        print(report(args.dirs))
    else:
        summaries = read_summaries(args.dirs)
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump({"suites": [{k: v for k, v in s.items()
                                   if not k.startswith(("warnings", "katex_refusals", "token_edits"))}
                                  for s in summaries]}, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
