#!/usr/bin/env bash
# Writes every command-line output of every shipped scene and lesson into OUT_DIR: the
# trajectory, events and reactions CSVs and stderr of `run` (RK4 and Dopri5, both bases),
# `run --script` of each lesson (both bases; a replay writes no reactions), and `analyze`. A restructuring that must not
# change behaviour compares two such folders: `diff -r before/ after/`.
#
# usage: scripts/outputs.sh SINGULAB_BINARY OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$2
mkdir -p "$out"

for scene in scenes/*.ron; do
    name=$(basename "$scene" .ron)
    for integrator in rk4 dopri5; do
        for basis in continued traditional; do
            tag="$out/$name.$integrator.$basis"
            "$bin" run "$scene" --integrator "$integrator" --basis "$basis" \
                --out "$tag.csv" --events "$tag.events.csv" --reactions "$tag.reactions.csv" \
                2>"$tag.stderr" || echo "exit $?" >>"$tag.stderr"
        done
    done
    "$bin" analyze "$scene" >"$out/$name.analyze" 2>&1 || echo "exit $?" >>"$out/$name.analyze"
done

for lesson in scenes/lessons/*.ron; do
    name=lesson.$(basename "$lesson" .ron)
    for basis in continued traditional; do
        tag="$out/$name.$basis"
        "$bin" run --script "$lesson" --basis "$basis" \
            --out "$tag.csv" --events "$tag.events.csv" \
            2>"$tag.stderr" || echo "exit $?" >>"$tag.stderr"
    done
done
# CPU times in stderr summaries differ from run to run.
sed -i -E 's/[0-9.]+ (s|ms) (of )?CPU/<cpu>/g' "$out"/*.stderr
