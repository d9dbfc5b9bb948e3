#!/usr/bin/env bash
# test_docs_commands.sh — every shell command the documentation shows runs as written from a fresh clone:
# the ```sh and ```bash blocks of README.md and docs/*.md (in that order, each file's blocks in order) run
# with bash -e in the root of one fresh `git clone` of the checkout, with a scratch HOME (caches, ~/.local).
# A block is skipped only when the line before its fence (after blank lines) ends an HTML comment that
# starts "<!-- skip:" and gives the reason, e.g.
#   <!-- skip: installs the package system-wide -->
# Lines that run scripts/test.sh are left out of their block: that script runs this test.
# Environment: CLFORGE_DOCS_FILES limits the files (space-separated, relative to the root);
# CLFORGE_TUNE_BUDGET (default here 5 s per family) shortens the quickstart's tune.
# Exit 77 (skipped) in sanitizer builds (the blocks build their own Release tree) and outside a git checkout.
set -uo pipefail
: "${CLFORGE_SOURCE_DIR:?set by ctest}" "${CLFORGE_TEST_TMP:?set by ctest}"
if [ "${CLFORGE_SANITIZE:-OFF}" = ON ]; then echo "skipped: the documented commands build their own tree (Release pass)"; exit 77; fi
git -C "$CLFORGE_SOURCE_DIR" rev-parse --git-dir >/dev/null 2>&1 || { echo "skipped: not a git checkout"; exit 77; }
rm -rf "$CLFORGE_TEST_TMP" && mkdir -p "$CLFORGE_TEST_TMP/home" "$CLFORGE_TEST_TMP/blocks"
tmp=$CLFORGE_TEST_TMP
clone=$tmp/clone
git clone -q "$CLFORGE_SOURCE_DIR" "$clone" || { echo "git clone failed"; exit 1; }
echo "clone of $(git -C "$clone" rev-parse --short HEAD); blocks run from $clone"

# Extract the blocks: one file per block, named NNN, and a line "NNN file:line reason dropped-lines" each.
(cd "$clone" && python3 - "$tmp/blocks" ${CLFORGE_DOCS_FILES:-README.md $(ls docs/*.md)} > "$tmp/index") <<'PY' || exit 1
import re, sys
out, files = sys.argv[1], sys.argv[2:]
n = 0
for f in files:
    lines = open(f, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(sh|bash)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, body, i = i, [], i + 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        # The comment that ends right before the fence, if it is a skip marker.
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        reason = ""
        if j >= 0 and lines[j].rstrip().endswith("-->"):
            k = j
            while k >= 0 and "<!--" not in lines[k]:
                k -= 1
            comment = " ".join(l.strip() for l in lines[k:j + 1])
            s = re.match(r"<!--\s*skip:\s*(.*?)\s*-->$", comment)
            if s:
                reason = s.group(1) or "no reason given"
        kept = [l for l in body if not re.search(r"(^|[\s/])scripts/test\.sh\b", l)]
        dropped = len(body) - len(kept)
        n += 1
        open(f"{out}/{n:03d}", "w").write("\n".join(kept) + "\n")
        print(f"{n:03d}\x1f{f}:{start + 1}\x1f{reason}\x1f{dropped}")   # \x1f: empty fields survive read
PY

pass=0; fail=0; skip=0; failed=""
while IFS=$'\x1f' read -r id where reason dropped; do
  if [ -n "$reason" ]; then
    echo "SKIP $where ($reason)"; skip=$((skip + 1)); continue
  fi
  [ "$dropped" -gt 0 ] && echo "     $where: left out $dropped line(s) that run scripts/test.sh (it runs this test)"
  if ! grep -qv '^[[:space:]]*\(#.*\)\?$' "$tmp/blocks/$id"; then
    echo "SKIP $where (nothing left to run)"; skip=$((skip + 1)); continue
  fi
  t0=$(date +%s)
  (cd "$clone" && env -u CLFORGE_CACHE_DIR -u XDG_CACHE_HOME HOME="$tmp/home" \
     CLFORGE_TUNE_BUDGET="${CLFORGE_TUNE_BUDGET:-5}" bash -e -o pipefail "$tmp/blocks/$id") > "$tmp/blocks/$id.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "PASS $where ($(( $(date +%s) - t0 )) s)"; pass=$((pass + 1))
  else
    echo "FAIL $where (exit $rc after $(( $(date +%s) - t0 )) s):"
    sed 's/^/     | /' "$tmp/blocks/$id"
    echo "     last lines of its output:"
    tail -15 "$tmp/blocks/$id.log" | sed 's/^/     > /'
    fail=$((fail + 1)); failed="$failed $where"
  fi
done < "$tmp/index"
echo "documented commands: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
