#!/usr/bin/env bash
# Issue the golden certificates of one schema with the privcert installed, into tests/golden/vN/.
# (v2 was issued by this script as it was in the commit that added tests/golden/v2, before --release existed.)
# Run from the repository root: tests/golden/make.sh v3
# Each case is a folder holding cert.json, key.pub and the inputs that are not bundled;
# tests/golden/cases.toml says how each is verified and what it must give.
set -euo pipefail
out="$PWD/tests/golden/$1"
root="$PWD"
mkdir -p "$out"
inputs="$root/tests/golden/inputs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

issue() {  # issue NAME RELEASE POLICY [audit options...]
  local name=$1 release=$2 policy=$3
  shift 3
  mkdir -p "$out/$name"
  privcert keygen --out "$work/$name.key" > /dev/null
  privcert audit "$release" --policy "$policy" --sign "$work/$name.key" --certificate "$out/$name/cert.json" \
    "$@" > /dev/null || [ $? -le 1 ]
  cp "$work/$name.key.pub" "$out/$name/key.pub"
}

(cd "$work" && privcert demo --out demo > /dev/null)
for name in hospital table5; do
  mkdir -p "$out/demo-$name"
  cp "$work/demo/$name.cert.json" "$out/demo-$name/cert.json"
  cp "$work/demo/demo.key.pub" "$out/demo-$name/key.pub"
done
issue table4-fail examples/table4/release.csv examples/table4/policy.toml
issue randomized-publisher examples/randomized/original.csv examples/randomized/publisher.toml \
  --release examples/randomized/release.csv
issue randomized-auditor examples/randomized/release.csv examples/randomized/auditor.toml
issue risk-population "$inputs/table5.csv" "$inputs/risk-population.toml"
issue marketer-population "$inputs/table5.csv" "$inputs/marketer-population.toml"
issue individual-risk-weights "$inputs/weighted.csv" "$inputs/individual-risk.toml"
(cd examples/table4 && issue utility-original release.csv policy.toml --original original.csv \
   --hierarchy zip=zip_hierarchy.csv --hierarchy age=age_hierarchy.csv)
