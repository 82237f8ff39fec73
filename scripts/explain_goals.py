#!/usr/bin/env python3
"""Put the explanations of missed goals into a results file, then regenerate its report.

    python3 scripts/explain_goals.py results/<device>-lib/results.json results/<device>-lib/goal_explanations.json

The explanations file is a JSON object keyed as RESULTS_SCHEMA.md describes for `goal_explanations`
(`ratio:plus/int32/2^16`, `plus/int32/2^16`, or a goal alone: `ratio`, `floor`, `peak`, `order`, `host`), each
value the text shown beside the MISS in the report's goals section. It is written by hand from measurements and
kept next to the results it explains, so a new run of the same sweep can be explained again with one command.
The report is regenerated with `reducelab report` (REDUCELAB, default build/reducelab) into the results folder.
"""
import json
import os
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results_path, explanations_path = sys.argv[1], sys.argv[2]
    with open(explanations_path, encoding="utf-8") as f:
        explanations = json.load(f)
    if not isinstance(explanations, dict) or not all(isinstance(v, str) for v in explanations.values()):
        print(f"{explanations_path}: expected an object of strings", file=sys.stderr)
        return 2
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    results["goal_explanations"] = explanations
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    tool = os.environ.get("REDUCELAB", "build/reducelab")
    folder = os.path.dirname(results_path) or "."
    return subprocess.call([tool, "report", results_path, "--out", folder])


if __name__ == "__main__":
    sys.exit(main())
