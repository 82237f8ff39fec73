#!/usr/bin/env python3
"""Same-run A/Bs of harness binaries built against several source trees, run in turns on the GPU machine.

A harness (by_key_library_ab.cu, by_key_stream_proxy.cu) built once per tree gives one binary per tree and
configuration; they cannot share a process (the trees define the same symbols), so the A/B runs them one after the
other, each size and configuration in a pass over the trees, the second pass in reverse order, and averages each row's
median over the passes. Every stop since 59 wrote this loop and its summary by hand into its device script; this is it
once.

  run:        python3 scripts/harness/ab_turns.py --trees main,lead,off --configs int,fmax --sizes 24,26 \\
                --binary './bk_{config}_{tree}' --args '1,8,256 7' [--passes 2] [--timeout 60] [--out ab.txt]
  summarize:  python3 scripts/harness/ab_turns.py --summarize ab.txt [--row library] [--win 1.01,0.97]
  self-test:  python3 scripts/harness/ab_turns.py --self-test   (CTest harness.ab_turns_rules; no GPU)

Each binary runs with HARNESS_LOG2N set to the size and --args split on spaces. The log (--out, default ab.txt) holds
`== SIZE CONFIG TREE PASS` before each binary's output; a summary line per size, configuration and run length gives
each tree's mean median (µs), % of peak and first tree / tree (above 1: that tree is faster). A line of the binary's
output that says WRONG is repeated at the top of the summary with where it came from: a row is never averaged past
a wrong answer silently. A binary that times out or fails is reported the same way.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

HEADER = re.compile(r'^== (\d+) (\S+) (\S+) (\d+)$')


def row_pattern(row):
    # `L=8  S=2097152   library 75.0us 60.3%` (by_key_library_ab.cu) or `| library 75.0us 60.3%` (the proxy)
    return re.compile(r'^L=(-?\d+)\s.*?\b' + re.escape(row) + r' ([\d.]+)us ([\d.]+)%')


def tabulate(lines, row='library'):
    """A log's lines as (problems, trees, rows): the lines that report a WRONG answer or a failed binary, the trees in
    the order they first ran, and per size, configuration and run length (sorted) each tree's (name, mean median µs,
    mean % of peak, first tree's time / this one's, None for the first tree itself)."""
    pattern = row_pattern(row)
    cells, trees, problems, where = {}, [], [], None
    for line in lines:
        line = line.rstrip('\n')
        m = HEADER.match(line)
        if m:
            where = (int(m.group(1)), m.group(2), m.group(3), int(m.group(4)))
            if where[2] not in trees:
                trees.append(where[2])
            continue
        if where is None:
            continue
        if 'WRONG' in line or line.startswith('!! '):
            kind = 'WRONG' if 'WRONG' in line else 'FAILED'
            problems.append(f"{kind} 2^{where[0]} {where[1]} {where[2]} pass {where[3]}: {line.strip()}")
        m = pattern.match(line)
        if m:
            key = (where[0], where[1], int(m.group(1)))
            cells.setdefault(key, {}).setdefault(where[2], []).append((float(m.group(2)), float(m.group(3))))
    rows = []
    for key in sorted(cells):
        by_tree = cells[key]
        base = trees[0] if trees[0] in by_tree else next(iter(by_tree))
        base_us = statistics.mean(us for us, _ in by_tree[base])
        parts = []
        for tree in trees:
            if tree in by_tree:
                us = statistics.mean(u for u, _ in by_tree[tree])
                peak = statistics.mean(p for _, p in by_tree[tree])
                parts.append((tree, us, peak, None if tree == base else base_us / us))
        rows.append((key, parts))
    return problems, trees, rows


def summary_lines(table):
    problems, _, rows = table
    out = list(problems)
    for key, parts in rows:
        out.append(f"2^{key[0]} {key[1]:5} L={key[2]:>6}: " + ' | '.join(
            f"{tree} {us:.1f}us {peak:.1f}%" + ('' if ratio is None else f" {ratio:.2f}x")
            for tree, us, peak, ratio in parts))
    return out


def summarize(lines, row='library'):
    """Summary lines (strings) of a log's lines."""
    return summary_lines(tabulate(lines, row))


def verdicts(table, mean_at_least, floor):
    """A verdict line per tree after the first, from tabulate's table: `win` when no line reports a problem (WRONG or
    FAILED), every cell holds the tree, the geometric mean of its ratios (unrounded) is at least mean_at_least and
    none is below floor; else `no-win`, saying why."""
    problems, trees, rows = table
    out = []
    for tree in trees[1:]:
        ratios = [ratio for _, parts in rows for name, _, _, ratio in parts if name == tree and ratio is not None]
        missing = len(rows) - len(ratios)
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else 0.0
        low = sum(1 for r in ratios if r < floor)
        why = []
        if problems:
            why.append(f"{len(problems)} problem lines")
        if missing:
            why.append(f"{missing} cells without it")
        ok = not why and mean >= mean_at_least and low == 0
        out.append(f"verdict {tree}: {'win' if ok else 'no-win'} {len(ratios)} ratios, geometric mean {mean:.3f}, "
                   f"{low} below {floor}" + (f" ({', '.join(why)})" if why else ''))
    return out


def summary_with_verdicts(lines, args):
    table = tabulate(lines, args.row)
    out = summary_lines(table)
    if args.win:
        mean_at_least, floor = (float(x) for x in args.win.split(','))
        out += verdicts(table, mean_at_least, floor)
    return out


def run(args):
    trees = args.trees.split(',')
    with open(args.out, 'w') as log:
        for size in args.sizes.split(','):
            for config in args.configs.split(','):
                for p in range(1, args.passes + 1):
                    for tree in (trees if p % 2 == 1 else list(reversed(trees))):
                        log.write(f"== {size} {config} {tree} {p}\n")
                        log.flush()
                        binary = args.binary.format(config=config, tree=tree)
                        env = dict(os.environ, HARNESS_LOG2N=size)
                        try:
                            done = subprocess.run([binary] + args.args.split(), env=env, stdout=log,
                                                  stderr=subprocess.STDOUT, timeout=args.timeout)
                            if done.returncode != 0:
                                log.write(f"!! {binary} exited with {done.returncode}\n")
                        except subprocess.TimeoutExpired:
                            log.write(f"!! {binary} ran past {args.timeout} s and was stopped\n")
                        except OSError as e:
                            log.write(f"!! {binary}: {e}\n")
    with open(args.out) as log:
        print('\n'.join(summary_with_verdicts(log, args)))
    return 0


def self_test():
    failures = []

    def expect(what, ok):
        if not ok:
            failures.append(what)

    log = """== 24 int main 1
GPU, peak 3352 GB/s
L=1      S=16777216  library 100.0us 70.0%
L=8      S=2097152   library 80.0us 60.0%
== 24 int lead 1
L=1      S=16777216  library 110.0us 64.0%
L=8      S=2097152   library 76.0us 63.0%
  L=8 WRONG (3 runs differ, count 2097152 of 2097152)
== 24 int lead 2
L=1      S=16777216  library 90.0us 66.0%
L=8      S=2097152   library 74.0us 57.0%
== 24 int main 2
L=1      S=16777216  library 100.0us 70.0%
L=8      S=2097152   library 80.0us 60.0%
!! ./bk_int_main ran past 60 s and was stopped
""".splitlines()
    out = summarize(log)
    expect('the WRONG line leads the summary', out[0].startswith('WRONG 2^24 int lead pass 1'))
    expect('the timeout leads the summary', out[1].startswith('FAILED 2^24 int main pass 2'))
    l1 = [line for line in out if 'L=     1' in line]
    expect('one line for runs of 1', len(l1) == 1)
    expect('passes averaged, base / tree', l1 and 'main 100.0us 70.0%' in l1[0] and 'lead 100.0us 65.0% 1.00x' in l1[0])
    l8 = [line for line in out if 'L=     8' in line]
    expect('ratio above 1 when the tree is faster', l8 and 'lead 75.0us 60.0% 1.07x' in l8[0])
    proxy = summarize(['== 26 dbl main 1', 'L=256    S=262144   | full_2 90.0us 70.0% | library 120.0us 61.0%'])
    expect('the proxy layout and --row', proxy == ['2^26 dbl   L=   256: main 120.0us 61.0%'] and
           summarize(['== 26 dbl main 1', 'L=256 S=1 | full_2 90.0us 70.0%'], 'full_2') ==
           ['2^26 dbl   L=   256: main 90.0us 70.0%'])
    # Verdicts, from unrounded ratios: a WRONG line, a missing cell, a low ratio or a low mean each make a no-win.
    clean = ['== 24 int main 1', 'L=1 S=1 library 100.0us 70.0%', 'L=8 S=1 library 80.0us 60.0%',
             '== 24 int lead 1', 'L=1 S=1 library 95.0us 73.0%', 'L=8 S=1 library 79.0us 61.0%']
    expect('a win', verdicts(tabulate(clean), 1.01, 0.97) ==
           ['verdict lead: win 2 ratios, geometric mean 1.032, 0 below 0.97'])
    expect('a mean under the bar', verdicts(tabulate(clean), 1.04, 0.97)[0].startswith('verdict lead: no-win 2 ratios'))
    slow = ['== 26 int main 1', 'L=8 S=1 library 1.0us 1.0%', '== 26 int lead 1', 'L=8 S=1 library 1.1us 1.0%']
    expect('a ratio under the floor', verdicts(tabulate(clean + slow), 0.9, 0.97)[0].endswith('1 below 0.97'))
    expect('a WRONG line', 'no-win' in verdicts(tabulate(log), 0.5, 0.5)[0] and
           '2 problem lines' in verdicts(tabulate(log), 0.5, 0.5)[0])
    expect('a missing cell', verdicts(tabulate(clean + ['== 26 int main 1', 'L=8 S=1 library 1.0us 1.0%']), 1.0,
                                      0.9)[0].endswith('(1 cells without it)'))
    expect('one verdict per tree', len(verdicts(tabulate(
        ['== 24 x a 1', 'L=1 S=1 library 1.0us 1%', '== 24 x b 1', 'L=1 S=1 library 1.0us 1%',
         '== 24 x c 1', 'L=1 S=1 library 1.0us 1%']), 1.0, 0.9)) == 2)
    # The turns: pass 2 in reverse order, HARNESS_LOG2N per size, a failing binary reported.
    with tempfile.TemporaryDirectory() as tmp:
        for tree in ('a', 'b'):
            path = os.path.join(tmp, f'bin_x_{tree}')
            with open(path, 'w') as f:
                f.write(f'#!/bin/sh\necho "L=1 S=1 library $HARNESS_LOG2N.0us 50.0% $1 {tree}"\n' +
                        ('exit 3\n' if tree == 'b' else ''))
            os.chmod(path, 0o755)
        ns = argparse.Namespace(trees='a,b', configs='x', sizes='20,22', args='7', passes=2, timeout=30,
                                binary=os.path.join(tmp, 'bin_{config}_{tree}'), out=os.path.join(tmp, 'log.txt'),
                                row='library', win='1.0,0.5')
        import contextlib
        import io
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            run(ns)
        text = open(ns.out).read()
        order = [m.group(3) + m.group(4) for m in map(HEADER.match, text.splitlines()) if m]
        expect('turn order a b, then b a', order == ['a1', 'b1', 'b2', 'a2', 'a1', 'b1', 'b2', 'a2'])
        expect('HARNESS_LOG2N and --args reach the binary', 'library 22.0us 50.0% 7 a' in text)
        expect('a failing binary is logged', text.count('exited with 3') == 4)
        expect('the run ends with the verdict, a no-win past a failure',
               printed.getvalue().rstrip().splitlines()[-1].startswith('verdict b: no-win'))
    for f in failures:
        print('FAIL:', f)
    print('ab_turns self-test:', 'FAILED' if failures else 'passed', f'({len(failures)} failures)')
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--summarize', metavar='LOG')
    ap.add_argument('--trees')
    ap.add_argument('--configs', default='default')
    ap.add_argument('--sizes', default='24')
    ap.add_argument('--binary', help="path pattern with {tree} and {config}")
    ap.add_argument('--args', default='', help="arguments for every binary, space separated")
    ap.add_argument('--passes', type=int, default=2)
    ap.add_argument('--timeout', type=int, default=60)
    ap.add_argument('--out', default='ab.txt')
    ap.add_argument('--row', default='library', help="the row of the harness's output to compare")
    ap.add_argument('--win', metavar='MEAN,FLOOR',
                    help="end with a verdict line per tree: win when nothing failed or is missing, the geometric mean "
                         "of its ratios is at least MEAN and none is below FLOOR")
    args = ap.parse_args()
    if args.win and len(args.win.split(',')) != 2:
        ap.error('--win: MEAN,FLOOR, two numbers')
    if args.self_test:
        return self_test()
    if args.summarize:
        with open(args.summarize) as log:
            print('\n'.join(summary_with_verdicts(log, args)))
        return 0
    if not args.trees or not args.binary:
        ap.error('--trees and --binary are needed to run (or --summarize LOG, or --self-test)')
    if args.passes < 1:
        ap.error('--passes: at least 1')
    return run(args)


if __name__ == '__main__':
    sys.exit(main())
