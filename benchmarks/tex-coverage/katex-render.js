#!/usr/bin/env node
// Renders a JSONL suite with KaTeX's MathML output, in one node process.
//
//   node katex-render.js INPUT.jsonl OUTPUT.jsonl
//
// Input lines: {"tex": "...", "display": true|false, ...}; a missing display means display mode
// (as in lectern-bench-tex). Output: one line per input line, in order:
//   {"katex": "<math …>…</math>" | null, "katex_error": null | "message"}
// Settings: output "mathml", throwOnError true (so unknown commands and parse errors throw instead of
// rendering red text), strict "ignore" (LaTeX-incompatible but accepted input is accepted silently),
// trust true (\href, \url, \includegraphics … render). Anything that throws is "KaTeX refuses".
// The module is looked up as `katex` (NODE_PATH) and then at Debian's /usr/share/nodejs/katex.
'use strict';
const fs = require('fs');

function loadKaTeX() {
    for (const name of ['katex', '/usr/share/nodejs/katex']) {
        try { return require(name); } catch (e) { /* next */ }
    }
    process.stderr.write('katex-render.js: the KaTeX node module is not installed.\n' +
        '  Install it with: apt-get install -y katex   (Debian/Ubuntu; puts it in /usr/share/nodejs/katex)\n' +
        '  or put a KaTeX checkout on NODE_PATH.\n');
    process.exit(3);
}

const katex = loadKaTeX();
const [input, output] = process.argv.slice(2);
if (!input || !output) {
    process.stderr.write('usage: node katex-render.js INPUT.jsonl OUTPUT.jsonl\n');
    process.exit(2);
}
const lines = fs.readFileSync(input, 'utf8').split('\n').filter(l => l.trim() !== '');
const out = [];
let refused = 0;
for (const line of lines) {
    const item = JSON.parse(line);
    const display = item.display === undefined ? true : !!item.display;
    let result;
    try {
        const html = katex.renderToString(item.tex, {
            output: 'mathml', throwOnError: true, strict: 'ignore', trust: true, displayMode: display,
        });
        const start = html.indexOf('<math');
        const end = html.lastIndexOf('</math>');
        if (start < 0 || end < 0) throw new Error('no <math> element in KaTeX output');
        result = {katex: html.slice(start, end + '</math>'.length), katex_error: null};
    } catch (e) {
        refused += 1;
        result = {katex: null, katex_error: String(e && e.message || e).split('\n')[0]};
    }
    out.push(JSON.stringify(result));
}
fs.writeFileSync(output, out.join('\n') + (out.length ? '\n' : ''));
process.stderr.write(`katex-render.js: KaTeX ${katex.version}: ${lines.length} formulas, ${refused} refused\n`);
