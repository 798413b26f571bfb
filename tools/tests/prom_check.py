#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a file in the Prometheus text exposition format (version 0.0.4),
as node_exporter's textfile collector reads it: metric and label names,
label values and their escapes, sample values, at most one HELP and
exactly one TYPE per metric, before its samples, the samples of a metric
together, no series twice, and counters named *_total.

    prom_check.py FILE    exit 0, or 1 with one line per fault on stderr
"""
import re
import sys

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*'
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r'^(%s)(?:\{(.*)\})? (\S+)(?: (-?[0-9]+))?$' % NAME)
PAIR = re.compile(r'(%s)=(%s)(,|$)' % (LABEL, VALUE))
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')
SUFFIXES = {'histogram': ('_bucket', '_sum', '_count'),
            'summary': ('_sum', '_count')}


def family(name, types):
    """The metric a sample belongs to (a histogram's NAME_bucket: NAME)."""
    for base, t in types.items():
        if name == base or any(name == base + s
                               for s in SUFFIXES.get(t, ())):
            return base
    return name


def labels(text):
    """The label pairs of '{...}' as a sorted tuple, or None if bad."""
    out, pos = [], 0
    while pos < len(text):
        m = PAIR.match(text, pos)
        if not m or m.group(1).startswith('__'):
            return None
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        return None
    return tuple(sorted(out))


def check(text):
    faults = []
    helps, types, done, series, sampled = set(), {}, set(), set(), set()
    current = None
    if text and not text.endswith('\n'):
        faults.append('the last line has no newline')
    for no, line in enumerate(text.splitlines(), 1):
        where = 'line %d' % no
        if not line.strip():
            continue
        if line.startswith('#'):
            w = line.split(None, 3)
            if len(w) >= 3 and w[1] in ('HELP', 'TYPE'):
                name = w[2]
                if not re.fullmatch(NAME, name):
                    faults.append('%s: bad metric name %r' % (where, name))
                    continue
                if name in sampled:
                    faults.append('%s: %s of %s after its samples'
                                  % (where, w[1], name))
                if w[1] == 'HELP':
                    if name in helps:
                        faults.append('%s: a second HELP of %s'
                                      % (where, name))
                    helps.add(name)
                else:
                    t = w[3] if len(w) > 3 else ''
                    if t not in TYPES:
                        faults.append('%s: bad type %r' % (where, t))
                    if name in types:
                        faults.append('%s: a second TYPE of %s'
                                      % (where, name))
                    types[name] = t
                    if t == 'counter' and not name.endswith('_total'):
                        faults.append('%s: counter %s not named *_total'
                                      % (where, name))
                if current is not None and current != name:
                    done.add(current)
                current = name
            continue
        m = SAMPLE.match(line)
        if not m:
            faults.append('%s: not a sample: %r' % (where, line))
            continue
        name, ltext, value = m.group(1), m.group(2) or '', m.group(3)
        fam = family(name, types)
        if fam not in types:
            faults.append('%s: %s has no TYPE before it' % (where, name))
        if fam in done:
            faults.append('%s: %s apart from its other samples'
                          % (where, name))
        if current is not None and current != fam:
            done.add(current)
        current = fam
        sampled.add(fam)
        lab = labels(ltext)
        if lab is None:
            faults.append('%s: bad labels {%s}' % (where, ltext))
            continue
        try:
            float(value)
        except ValueError:
            faults.append('%s: bad value %r' % (where, value))
        if (name, lab) in series:
            faults.append('%s: %s%s twice' % (where, name, dict(lab)))
        series.add((name, lab))
    return faults


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        faults = check(f.read())
    for f in faults:
        print('prom_check: %s: %s' % (sys.argv[1], f), file=sys.stderr)
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main())
