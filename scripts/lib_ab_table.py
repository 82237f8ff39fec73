#!/usr/bin/env python3
"""Same-run A/B tables of `reducelab::reduce` from the device scripts' labelled CSVs of `reducelab compare`.

Each line is `label,round,` followed by a row of compare's results.csv (the device script prefixes them); the first label
seen is the base. For every functor, type and n the table gives, per round, each label's median in µs and its x CUB
(CUB's median in the same run over the label's; its 95 % interval), and base / label (above 1: that label is faster).
A row whose validation did not pass is marked with its status.

  python3 scripts/lib_ab_table.py cl.csv [more.csv ...]
"""
import csv
import sys


def main(paths):
    for path in paths:
        rows, labels, header = {}, [], None
        for r in csv.reader(open(path)):
            if len(r) < 3:
                continue
            if r[2] == 'variant':
                header = r[2:]
                continue
            if header is None:
                continue
            row = dict(zip(header, r[2:]))
            if row['variant'] != 'reducelab::reduce':
                continue
            if r[0] not in labels:
                labels.append(r[0])
            key = (row['functor'], row['type'], int(row['n']))
            rows.setdefault(key, {})[(r[0], r[1])] = row
        print('#', path, 'labels', labels)
        base = labels[0]
        for key in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
            d = rows[key]
            cells = []
            for rnd in sorted({rnd for _, rnd in d}):
                a = d.get((base, rnd))
                if not a:
                    continue
                cell = f"r{rnd}"
                for v in labels:
                    x = d.get((v, rnd))
                    if not x:
                        continue
                    cub = x['speedup_vs_cub']
                    cub_txt = f"{float(cub):.2f}x CUB [{float(x['speedup_vs_cub_lo']):.2f}, " \
                              f"{float(x['speedup_vs_cub_hi']):.2f}]" if cub else "no CUB"
                    status = '' if x['validation'] == 'PASS' else ' ' + x['validation']
                    cell += f" {v} {float(x['median_us']):7.2f} ({cub_txt}){status}"
                    if v != base:
                        cell += f" {float(a['median_us']) / float(x['median_us']):.3f}"
                cells.append(cell)
            print(f"{key[0][:8]:8} {key[1]:11} 2^{key[2].bit_length() - 1:<2} " + ' | '.join(cells))


if __name__ == '__main__':
    main(sys.argv[1:])
