#!/usr/bin/env python3
"""Same-run A/B tables from the device scripts' labelled CSVs (results/*-segmented/*-ab/*.csv).

Each line of such a CSV is `label,round,` followed by a row of `reducelab segmented compare`'s segmented.csv; the
first label seen is the base (main). For every functor, type and layout the table gives, per round, the library's
median in µs with its % of peak for each label, and base / label (above 1: that label is faster). A row whose
validation did not pass is marked with its status.

  python3 scripts/ab_table.py results/NVIDIA_H200-segmented/in-order-tiles-ab/call7-D-2e26.csv [more.csv ...]
"""
import sys, csv, collections
for path in sys.argv[1:]:
    rows = collections.OrderedDict(); labels = []
    for r in csv.reader(open(path)):
        if r[2] == 'functor' or 'reducelab' not in r[8]: continue
        if r[0] not in labels: labels.append(r[0])
        rows.setdefault((r[2], r[3], r[5]), {})[(r[0], r[1])] = (float(r[11]), float(r[15]), r[10])
    print('#', path, 'labels', labels)
    base = labels[0]
    for k, d in rows.items():
        cells = []
        for rnd in sorted({rnd for _, rnd in d}):
            a = d.get((base, rnd))
            if not a: continue
            cell = f"r{rnd} {base} {a[0]:6.1f} ({a[1]:4.1f}%)"
            for v in labels[1:]:
                x = d.get((v, rnd))
                if x: cell += f" {v} {x[0]:6.1f} ({x[1]:4.1f}%) {a[0]/x[0]:.3f}{'' if x[2] == 'pass' else ' ' + x[2]}"
            cells.append(cell)
        print(f"{k[0][:8]:8} {k[1]:9} {k[2]:13} " + ' | '.join(cells))
