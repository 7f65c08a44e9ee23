#!/usr/bin/env bash
# Draws the reference geometry figures (Tests/LecternCLITests/Fixtures/figures/*.figure.json) with
# `lectern render`, lays them out on one page and screenshots it in headless Chromium, so that a
# change to the drawing can be looked at, not only tested:
#
#   scripts/figure-gallery.sh [OUT_DIR]       (default: output/figure-gallery)
#
# Writes OUT_DIR/*.svg, OUT_DIR/gallery.html and OUT_DIR/gallery.png (and small.png: the same
# figures at a phone's width, where strokes and labels must still read).
set -euo pipefail
cd "$(dirname "$0")/.."
LECTERN="${LECTERN:-.build/debug/lectern}"
[ -x "$LECTERN" ] || swift build --product lectern
out="${1:-output/figure-gallery}"
mkdir -p "$out"
cells=""
for f in Tests/LecternCLITests/Fixtures/figures/*.figure.json; do
  name=$(basename "$f" .figure.json)
  lang=en
  case "$name" in *arabic*) lang=ar ;; esac
  "$LECTERN" render --language "$lang" --output-dir "$out" "$f"
  alt=$(python3 -c 'import json,sys,html; print(html.escape(json.load(open(sys.argv[1]))["alt"]))' "$f")
  cells+="<figure><img src=\"$name.svg\" alt=\"$alt\"/><figcaption>$name</figcaption></figure>"
done
page() {
  cat <<HTML
<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{font-family:sans-serif;margin:12px;display:grid;grid-template-columns:repeat($2,1fr);gap:12px}
figure{margin:0;border:1px solid #ccc;padding:6px} img{width:$1;height:auto;display:block;margin:auto}
figcaption{font-size:12px;color:#555;text-align:center}
</style></head><body>$cells</body></html>
HTML
}
page 100% 4 > "$out/gallery.html"
page 100% 5 > "$out/small.html"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chrome" ] || { echo "no chromium: the SVGs and gallery.html are in $out" >&2; exit 0; }
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1100 \
  --screenshot="$(realpath "$out")/gallery.png" "file://$(realpath "$out")/gallery.html" 2>/dev/null
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,500 \
  --screenshot="$(realpath "$out")/small.png" "file://$(realpath "$out")/small.html" 2>/dev/null
echo "wrote $out/gallery.png and $out/small.png" >&2
