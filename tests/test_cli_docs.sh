#!/usr/bin/env bash
# test_cli_docs.sh — the options and environment variables that exist are the ones documented, and only those:
# every CLFORGE_* variable the library or the CLI reads (a "CLFORGE_..." string literal in host/, autotune/,
# tools/) appears in docs/cli.md and in `clforge --help`; every option a command parses (a "--..." literal in
# tools/cmd_<command>.c) appears in `clforge <command> --help` and in that command's section of docs/cli.md;
# and no page (docs/*.md, README.md) or help text names a variable or option that does not exist.
set -u
CLI=${CLFORGE_CLI:?set CLFORGE_CLI to the clforge program}
SRC=${CLFORGE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=${CLFORGE_TEST_TMP:-$(mktemp -d)}
rm -rf "$TMP" && mkdir -p "$TMP"
export CLFORGE_CACHE_DIR="$TMP/cache"

"$CLI" --help >"$TMP/help-main.txt" || { echo "FAIL: clforge --help exited $?"; exit 1; }
cmds=()
for f in "$SRC"/tools/cmd_*.c; do
    c=$(basename "$f" .c); c=${c#cmd_}
    cmds+=("$c")
    "$CLI" "$c" --help >"$TMP/help-$c.txt" 2>&1 || { echo "FAIL: clforge $c --help exited $?"; exit 1; }
done

python3 - "$SRC" "$TMP" "${cmds[@]}" <<'PY'
import glob, os, re, sys
src, tmp, cmds = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []
def read(p):
    return open(p, encoding="utf-8", errors="replace").read()
def code_files(dirs, exts=(".c", ".h", ".cl", ".sh", ".py", ".txt", ".cmake", ".in")):
    for d in dirs:
        for root, _, files in os.walk(os.path.join(src, d)):
            for f in files:
                if f.endswith(exts) or f == "CMakeLists.txt":
                    yield os.path.join(root, f)

cli_md = read(os.path.join(src, "docs/cli.md"))
main_help = read(os.path.join(tmp, "help-main.txt"))
tune_help = read(os.path.join(tmp, "help-tune.txt"))
m = re.search(r"Families:(.*)", tune_help)
families = m.group(1).split() if m else []
if not families:
    fails.append("clforge tune --help lists no families")
family_vars = {"CLFORGE_%s_CONFIG" % f.upper() for f in families}

# Variables read: string literals in the library and the CLI.
read_vars = set()
for p in code_files(["host", "autotune", "tools", "include"]):
    read_vars |= set(re.findall(r'"(CLFORGE_[A-Z0-9_]+)"', read(p)))
read_vars -= family_vars   # covered by CLFORGE_<FAMILY>_CONFIG
for v in sorted(read_vars):
    if not re.search(r"\b%s\b" % v, cli_md): fails.append("%s is read but docs/cli.md does not mention it" % v)
    if not re.search(r"\b%s\b" % v, main_help): fails.append("%s is read but `clforge --help` does not mention it" % v)
for text, where in ((cli_md, "docs/cli.md"), (main_help, "clforge --help")):
    if "CLFORGE_<FAMILY>_CONFIG" not in text: fails.append("%s lacks CLFORGE_<FAMILY>_CONFIG" % where)

# Names that exist anywhere in the code (build options, test variables, ...): a page may mention those.
existing = set(read_vars) | family_vars
for p in code_files(["host", "autotune", "tools", "include", "tests", "scripts", "bench", "cmake", "examples",
                     "python", "cl"]):
    existing |= set(re.findall(r"\b(CLFORGE_[A-Z0-9_]*[A-Z0-9])\b", read(p)))
existing |= set(re.findall(r"\b(CLFORGE_[A-Z0-9_]*[A-Z0-9])\b", read(os.path.join(src, "CMakeLists.txt"))))
pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
for p in pages + [os.path.join(tmp, "help-main.txt")]:
    for v in sorted(set(re.findall(r"\b(CLFORGE_[A-Z0-9_]*[A-Z0-9])\b", read(p)))):
        if v not in existing:
            fails.append("%s names %s, which nothing reads or defines" % (os.path.relpath(p, src), v))

# Options: "--..." literals in tools/cmd_<command>.c.
flags = {}
for c in cmds:
    flags[c] = set(re.findall(r'"(--[a-z][a-z0-9-]*)"', read(os.path.join(src, "tools", "cmd_%s.c" % c)))) - {"--help"}
sections = {}
for c in cmds:
    m = re.search(r"^## clforge %s\b(.*?)(?=^## |\Z)" % c, cli_md, re.S | re.M)
    if not m: fails.append("docs/cli.md has no section '## clforge %s'" % c); continue
    sections[c] = m.group(1)
known = {"--help", "--version"}
everything = set().union(*flags.values()) | known
for c in cmds:
    help_text = read(os.path.join(tmp, "help-%s.txt" % c))
    for f in sorted(flags[c]):
        if not re.search(r"%s\b" % re.escape(f), help_text): fails.append("clforge %s --help lacks %s" % (c, f))
        if c in sections and not re.search(r"%s\b" % re.escape(f), sections[c]):
            fails.append("docs/cli.md's clforge %s section lacks %s" % (c, f))
    for text, where in ((help_text, "clforge %s --help" % c), (sections.get(c, ""), "docs/cli.md, clforge %s" % c)):
        for f in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)) - flags[c] - known):
            fails.append("%s names %s, which clforge %s does not take" % (where, f, c))
# The main help: a command's line names only that command's options; other lines only options that exist.
for line in main_help.splitlines():
    m = re.match(r"\s+(\w+) ", line)
    own = flags.get(m.group(1)) if m else None
    for f in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line):
        if f not in (own | known if own is not None else everything):
            fails.append("clforge --help names %s in: %s" % (f, line.strip()))
for f in fails: print("FAIL:", f)
print("%d check(s) failed" % len(fails) if fails else "all CLI documentation checks passed")
sys.exit(1 if fails else 0)
PY
