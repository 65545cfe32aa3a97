#!/usr/bin/env python3
"""Reads Callgrind dumps (--separate-threads=yes --dump-instr=yes) of one consumer and prints, per thread that
runs per frame, the instructions per frame and the code it runs: distinct hot instructions (run at least every
other frame), the 64-byte cache lines and 4 KiB pages they lie in, by object. Used by bench/capture/footprint.

  footprint.py --frames N [--label L] [--order-object NAME --order-out FILE] DUMP...

With --order-out, also writes the hot functions of object NAME (self cost at least one instruction every other
frame), busiest thread first and, within a thread, by cost, between the markers pwrecord_hot_path_begin and
pwrecord_hot_path_end (the range CacheWarmer prefetches): the linker's order file (scripts/hot-path.order).
"""
import argparse, collections, os, re, sys

NAME_DEF = re.compile(r'^(c?(?:ob|fn))=\((\d+)\)(?: (.*))?$')


def parse(path):
    """(total Ir, {(object id, address): Ir}, {(object id, function id): Ir}, object names, function names)."""
    names = {'ob': {}, 'fn': {}}
    ob = fn = None
    addr = 0
    call_line = False
    by_addr = collections.defaultdict(int)
    by_fn = collections.defaultdict(int)
    total = 0
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            m = NAME_DEF.match(line)
            if m:
                kind, ident, name = m.groups()
                base = kind.lstrip('c')
                if name:
                    names[base][ident] = name
                if kind == 'ob':
                    ob = ident
                elif kind == 'fn':
                    fn = ident
                continue
            if line.startswith('calls='):
                call_line = True
                continue
            head = line[0]
            if head not in '0123456789+-*':
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith('0x'):
                addr = int(a, 16)
            elif a[0] == '+':
                addr += int(a[1:], 0)
            elif a[0] == '-':
                addr -= int(a[1:], 0)
            elif a != '*':
                addr = int(a, 0)
            if call_line:   # the cost of a call (inclusive): the call instruction ran, its cost is the callee's
                call_line = False
                by_addr.setdefault((ob, addr), 0)
                continue
            ir = int(parts[-1]) if len(parts) >= 3 else 0
            by_addr[(ob, addr)] += ir
            by_fn[(ob, fn)] += ir
            total += ir
    return total, by_addr, by_fn, names['ob'], names['fn']


def group(objname):
    base = os.path.basename(objname)
    if base.startswith('libswift'):
        return 'Swift runtime'
    if base.startswith(('libpipewire', 'libspa')) or '/spa-0.2/' in objname or '/pipewire-0.3/' in objname:
        return 'PipeWire'
    if base.startswith(('libc.so', 'ld-linux', 'libm.so')):
        return 'libc'
    return base


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--frames', type=int, required=True)
    ap.add_argument('--label', default='')
    ap.add_argument('--order-object')
    ap.add_argument('--order-out')
    ap.add_argument('dumps', nargs='+')
    args = ap.parse_args()
    frames = max(args.frames, 1)
    threads = []
    for path in args.dumps:
        total, by_addr, by_fn, obnames, fnnames = parse(path)
        if total / frames < 50:     # not a per-frame thread (the main thread, idle pools, the loop)
            continue
        threads.append((path, total, by_addr, by_fn, obnames, fnnames))
    threads.sort(key=lambda t: -t[1])
    sums = collections.Counter()
    rows = []
    for n, (path, total, by_addr, by_fn, obnames, fnnames) in enumerate(threads):
        hot = [k for k, v in by_addr.items() if v >= frames / 2]
        per = collections.defaultdict(set)
        for ob, a in hot:
            per[group(obnames.get(ob, ob))].add(a)
        lines = sum(len({a >> 6 for a in s}) for s in per.values())
        pages = sum(len({a >> 12 for a in s}) for s in per.values())
        detail = ', '.join(f'{g} {len({a >> 6 for a in s})}/{len({a >> 12 for a in s})}'
                           for g, s in sorted(per.items(), key=lambda kv: -len(kv[1])))
        rows.append(f'  {args.label} thread {n + 1}: {total / frames:6.0f} instructions per frame, {len(hot):5d} hot, '
                    f'{lines:4d} lines, {pages:3d} pages  (lines/pages: {detail})')
        sums['ir'] += total / frames
        sums['lines'] += lines
        sums['pages'] += pages
    for r in rows:
        print(r)
    print(f'FOOTPRINT {args.label} instructions={sums["ir"]:.0f} lines={sums["lines"]} pages={sums["pages"]} '
          f'threads={len(threads)}')
    if args.order_out:
        seen, order = set(), []
        for path, total, by_addr, by_fn, obnames, fnnames in threads:
            mine = [(v, fnnames.get(f, f)) for (ob, f), v in by_fn.items()
                    if os.path.basename(obnames.get(ob, '')) == args.order_object and v >= frames / 2]
            for v, name in sorted(mine, key=lambda x: -x[0]):
                if name.startswith('0x') or name in seen:
                    continue
                seen.add(name)
                order.append(name)
        # Between the markers CacheWarmer reads (Sources/PortalCapture/PipeWire/CacheWarmer.swift): the range
        # of code it prefetches when the data thread wakes.
        order = ['pwrecord_hot_path_begin'] + [n for n in order if not n.startswith('pwrecord_hot_path_')] \
            + ['pwrecord_hot_path_end']
        with open(args.order_out, 'w') as f:
            f.write(''.join(n + '\n' for n in order))
        print(f'wrote {len(order)} functions to {args.order_out}', file=sys.stderr)


if __name__ == '__main__':
    main()
