#!/usr/bin/env bash
# h200_cli.sh — on the GPU host: the CLI's JSON outputs on the H200 (devices, a short tune, a quick bench with the
# reference copy and CLBlast opened on demand), brought back to be validated against docs/schema/ here
# (tests/test_json_schema.sh's validator: python3 with jsonschema), plus the tables as printed.
# Locally on PoCL: CLF_CLI_DEVICE=0:0 CLF_CLI_BUILD=build-h16a CLF_CLI_ONLY=copy bash scripts/gpu/h200_cli.sh
. scripts/gpu/common.sh
gpu_results
dev=${CLF_CLI_DEVICE:-nvidia}
only=${CLF_CLI_ONLY:+--only $CLF_CLI_ONLY}
if [ -n "${CLF_CLI_BUILD:-}" ]; then
  cmake --build "$CLF_CLI_BUILD" --target clforge_cli >/dev/null && cd "$CLF_CLI_BUILD" || exit 1
else
  gpu_build clforge_cli
fi
export CLFORGE_CACHE_DIR=/tmp/clf-cache-cli
./clforge devices >$r/devices.txt 2>&1; ./clforge devices --json >$r/devices.json 2>>$r/devices.txt
CLFORGE_DEVICE=$dev ./clforge devices 2>&1 | grep -E "^platform|^  [0-9]+:[0-9]+|no devices"
timeout 120 ./clforge tune --device "$dev" --family copy --precision f32 --budget 20 --json $r/tune.json \
  >$r/tune.txt 2>&1; echo "tune exit $?"; tail -4 $r/tune.txt
timeout 400 ./clforge bench --device "$dev" --quick $only --json $r/bench.json >$r/bench.txt 2>$r/bench.err
echo "bench exit $?"; grep -vE "^\[" $r/bench.txt | cut -c1-140
ldd ./clforge | grep -i clblast || echo "clforge does not link CLBlast"
if python3 -c 'import jsonschema' 2>/dev/null; then
  for f in devices tune bench; do
    python3 - "$OLDPWD/docs/schema" "$f" "$r/$f.json" <<'PY' && echo "$f: valid"
import json, os, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
import jsonschema
folder, name, path = sys.argv[1:4]
store = {json.load(open(os.path.join(folder, f)))["$id"]: json.load(open(os.path.join(folder, f)))
         for f in os.listdir(folder) if f.endswith(".json")}
schema = json.load(open(os.path.join(folder, name + ".json")))
v = jsonschema.Draft7Validator(schema, resolver=jsonschema.RefResolver(schema["$id"], schema, store=store))
errs = list(v.iter_errors(json.load(open(path))))
for e in errs[:5]: print(name, "/".join(map(str, e.path)), e.message[:200])
sys.exit(1 if errs else 0)
PY
  done
else
  echo "no python3 jsonschema here: validate $r/*.json with tests/test_json_schema.sh's validator after fetching"
fi
