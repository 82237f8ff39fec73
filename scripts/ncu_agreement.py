#!/usr/bin/env python3
"""Nsight Compute as a second instrument: compare its kernel durations and DRAM bytes with ReduceLab's timings.

Each CSV is `ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum` over
`reducelab compare --variants V --sizes N --no-hold --no-confirm --samples S`, named ncu_<tag>.csv with a sibling
<tag>.json (that run's results, which say how many times V ran: 1 validation + warm-up + samples). The kernels of
one backend run in a fixed sequence, so the kernel list splits into equal runs; a run's time is the sum of its
kernels' durations, and its bytes the sum of their DRAM reads. ncu replays each kernel alone with the caches
flushed (--cache-control all) and clocks left alone (--clock-control none), so its figure is the cold kernel time
without the launch gaps between a backend's kernels; ReduceLab's held-stream event time includes those gaps.

`--kernels` prints one row per kernel and size instead (medians over a size's launches) from CSVs taken with the
metrics of KERNEL_METRICS over several sizes at once (`--sizes 2^16,2^18,...`, in that order): the sizes' runs
follow each other, so the kernel list splits into as many equal parts as there are sizes. Each CSV's sibling
<tag>.json names the functor, type and variant.
"""
import csv
import json
import statistics
import sys
from pathlib import Path

IGNORED_KERNELS = ("read_pass", "blocking_kernel")  # the L2 flush and the stream hold, not the reduction


def number(text):
    return float(text.replace(",", ""))


def reduction_rows(csv_path):
    """The CSV's kernel rows (not the units row), the L2 flush and the stream hold left out, in launch order."""
    lines = [l for l in Path(csv_path).read_text().splitlines() if l.startswith('"')]
    return [r for r in csv.DictReader(lines) if r.get("ID", "").isdigit()
            and not any(k in r.get("Kernel Name", "") for k in IGNORED_KERNELS)]


def kernels(csv_path):
    return [(r["Kernel Name"], number(r["gpu__time_duration.sum"]) / 1e3, number(r["dram__bytes_read.sum"]))
            for r in reduction_rows(csv_path)]


KERNEL_METRICS = (
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "launch__waves_per_multiprocessor",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg", "sm__cycles_elapsed.avg",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "smsp__inst_executed.sum")


def kernel_table(csv_paths):
    print("| functor/type | backend | n | kernel (launches) | grid x block | registers | waves | ncu µs (median) "
          "| DRAM read MiB | DRAM % of peak | SM active / elapsed cycles | warps active % | issue active % "
          "| long-scoreboard stalls per issue | instructions |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in csv_paths:
        run = json.loads(Path(path).with_suffix(".json").read_text())
        sizes = sorted({r["n"] for r in run["rows"] if r.get("timed")})
        first = next(r for r in run["rows"] if r.get("timed"))
        rows = reduction_rows(path)
        if not sizes or len(rows) % len(sizes):
            print(f"| {first['functor']}/{first['type']} | {first['variant']} | ? ({len(rows)} kernels for "
                  f"{len(sizes)} sizes) |")
            continue
        per = len(rows) // len(sizes)
        for i, n in enumerate(sizes):
            part = rows[i * per:(i + 1) * per]
            names = list(dict.fromkeys(r["Kernel Name"].split("(")[0].split("<")[0].split()[-1] for r in part))
            for name in names:
                mine = [r for r in part if r["Kernel Name"].split("(")[0].split("<")[0].split()[-1] == name]
                m = {k: statistics.median(number(r[k]) for r in mine) for k in KERNEL_METRICS}
                label = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
                print(f"| {first['functor']}/{first['type']} | {first['variant']} | {label} "
                      f"| {name.split('::')[-1]} ({len(mine)}) "
                      f"| {m['launch__grid_size']:.0f} x {m['launch__block_size']:.0f} "
                      f"| {m['launch__registers_per_thread']:.0f} | {m['launch__waves_per_multiprocessor']:.2f} "
                      f"| {m['gpu__time_duration.sum'] / 1e3:.2f} | {m['dram__bytes_read.sum'] / 2**20:.2f} "
                      f"| {m['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} "
                      f"| {m['sm__cycles_active.avg'] / m['sm__cycles_elapsed.avg']:.2f} "
                      f"| {m['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} "
                      f"| {m['smsp__issue_active.avg.pct_of_peak_sustained_active']:.1f} "
                      f"| {m['smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio']:.1f} "
                      f"| {m['smsp__inst_executed.sum']:.0f} |")


def main(ref_json, csv_paths):
    ref = json.loads(Path(ref_json).read_text())
    ref_median = {(r["variant"], r["n"]): r["median_us"] for r in ref["rows"] if r.get("timed")}
    print("| backend | n | kernels/run | ncu µs/run (median) | ReduceLab µs (held, clean-cold) | ncu / ReduceLab "
          "| DRAM read/run | bytes to read | DRAM / bytes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in csv_paths:
        run = json.loads(Path(path).with_suffix(".json").read_text())
        row = next(r for r in run["rows"] if r.get("timed"))
        variant, n, bytes_read = row["variant"], row["n"], row["bytes_read"]
        runs = 1 + run["timing"]["warmup_runs"] + run["timing"]["samples"]
        ks = kernels(path)
        if not ks or len(ks) % runs:
            print(f"| {variant} | {n} | ? ({len(ks)} kernels for {runs} runs) | | | | | | |")
            continue
        per = len(ks) // runs
        times = [sum(k[1] for k in ks[i * per:(i + 1) * per]) for i in range(runs)]
        dram = [sum(k[2] for k in ks[i * per:(i + 1) * per]) for i in range(runs)]
        t, d = statistics.median(times), statistics.median(dram)
        mine = ref_median.get((variant, n))
        ratio = f"{t / mine:.3f}" if mine else "-"
        mine_text = f"{mine:.2f}" if mine else "-"
        label = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
        print(f"| {variant} | {label} | {per} | {t:.2f} | {mine_text} | {ratio} | {d / 2**20:.2f} MiB "
              f"| {bytes_read / 2**20:.2f} MiB | {d / bytes_read:.3f} |")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--kernels":
        kernel_table(sys.argv[2:])
    elif len(sys.argv) >= 3:
        main(sys.argv[1], sys.argv[2:])
    else:
        sys.exit("usage: ncu_agreement.py REFERENCE_RESULTS.json ncu_*.csv | ncu_agreement.py --kernels ncu_*.csv")
