"""Summarise `scripts/bench.sh --write` runs (P7: write throughput) into write_report.json / write_report.md.

python3 report_write.py --work DIR --out DIR [--load BEFORE AFTER] [--git REV] [--keys N]

Runs are DIR/runs/{lakescope_write,java_write}.pk_upsert.N.{time,out,err}; the tables written are
DIR/write/{lakescope,java}.N/perf.db/pk_upsert; the read-back checks are DIR/runs/check.*.out.
"""
import argparse
import datetime
import glob
import json
import os
import re
import statistics

from report import machine, parse_time

# Java Paimon 0.9 anchor (../shared/bench/ANCHORS.md, quiet machine): write_pk 19.3 s wall, 4,000,000 rows
# written, 66.2 MiB of data files.
ANCHOR = {'wall_s': 19.3, 'rows': 4_000_000, 'data_bytes': 66.2 * 2 ** 20, 'rss_mib': 1377}
WRITERS = [('lakescope_write', 'lakescope bench-write (1 thread)'),
           ('java_write', 'Java Paimon 0.9.0 (PerfTool writepk)')]


def data_bytes(tdir):
    files = [f for f in glob.glob(os.path.join(tdir, 'bucket-*', '*')) if os.path.isfile(f)]
    return len(files), sum(os.path.getsize(f) for f in files)


def collect(work, label, rows_written):
    runs = []
    for tf in sorted(glob.glob(os.path.join(work, 'runs', '%s.pk_upsert.*.time' % label))):
        n = tf.rsplit('.', 2)[-2]
        r = parse_time(tf)
        r['n'] = n
        out = open(tf[:-5] + '.out').read().strip().splitlines()
        wh = os.path.join(work, 'write', '%s.%s' % (label.split('_')[0], n), 'perf.db', 'pk_upsert')
        if label == 'lakescope_write':
            try:
                r.update(json.loads(out[-1]))
            except Exception:
                r['error'] = (out[-1] if out else '') + ' ' + open(tf[:-5] + '.err').read()[-400:]
        else:
            secs = [float(m.group(1)) for line in out for m in [re.match(r'commit \d+ written in (\S+)s', line)] if m]
            r['seconds'] = sum(secs)
            r['commit_seconds'] = secs
            r['rows'] = rows_written
        if os.path.isdir(wh):
            r['data_files'], r['data_bytes'] = data_bytes(wh)
        runs.append(r)
    ok = [r for r in runs if r.get('exit') == 0 and 'error' not in r]
    agg = {'runs': runs}
    if ok:
        wall = statistics.median(r['wall_s'] for r in ok)
        cpu = statistics.median(r['cpu_s'] for r in ok)
        inproc = statistics.median(r['seconds'] for r in ok)
        nbytes = statistics.median(r['data_bytes'] for r in ok if 'data_bytes' in r)
        rows = ok[0]['rows']
        agg.update({'rows': rows, 'data_bytes': nbytes, 'data_files': ok[-1].get('data_files'),
                    'median_wall_s': wall, 'median_cpu_s': cpu, 'median_in_process_s': inproc,
                    'median_rss_mib': statistics.median(r['rss_mib'] for r in ok),
                    'rows_per_s': rows / wall, 'mb_per_s': nbytes / 1e6 / wall,
                    'rows_per_cpu_s': rows / max(cpu, 1e-3), 'rows_per_s_in_process': rows / max(inproc, 1e-3)})
    return agg


def checks(work):
    out = {}
    for f in sorted(glob.glob(os.path.join(work, 'runs', 'check.*.out'))):
        name = os.path.basename(f)[len('check.'):-len('.out')]
        lines = open(f).read().strip().splitlines()
        try:
            out[name] = json.loads(lines[-1])
        except Exception:
            err = open(f[:-4] + '.err').read()[-300:] if os.path.exists(f[:-4] + '.err') else ''
            out[name] = {'error': (lines[-1] if lines else '') + ' ' + err.strip()}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--load', nargs=2, default=['?', '?'])
    ap.add_argument('--git', default='?')
    ap.add_argument('--keys', type=int, default=2_000_000)
    a = ap.parse_args()
    rows_written = a.keys * 2  # 5 commits x 40% of the keys
    res = {'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
           'git': a.git, 'machine': machine(), 'load_before': a.load[0], 'load_after': a.load[1],
           'keys': a.keys, 'writers': {}, 'checks': checks(a.work), 'anchor': ANCHOR}
    for label, _ in WRITERS:
        res['writers'][label] = collect(a.work, label, rows_written)
    ls, jv = res['writers']['lakescope_write'], res['writers']['java_write']
    ratios = {}
    if 'rows_per_s' in ls and 'rows_per_s' in jv:
        ratios['java_same_run'] = {k: ls[k] / jv[k] for k in ('rows_per_s', 'mb_per_s', 'rows_per_cpu_s')}
        ratios['java_same_run']['peak_rss'] = ls['median_rss_mib'] / jv['median_rss_mib']
        ratios['java_same_run']['data_bytes'] = ls['data_bytes'] / jv['data_bytes']
    if 'rows_per_s' in ls and a.keys == 2_000_000:
        ratios['java_anchor'] = {'rows_per_s': ls['rows_per_s'] / (ANCHOR['rows'] / ANCHOR['wall_s']),
                                 'mb_per_s': ls['mb_per_s'] / (ANCHOR['data_bytes'] / 1e6 / ANCHOR['wall_s'])}
    res['ratios_lakescope_vs'] = ratios
    c = res['checks']
    want = {k: v for k, v in c.items() if 'rows' in v}
    res['correct'] = {
        'rows': all(v['rows'] == a.keys for v in want.values()) and len(want) > 0,
        'lakescope_checksum_equal': c.get('lakescope_read.lakescope', {}).get('checksum') is not None and
        c.get('lakescope_read.lakescope', {}).get('checksum') == c.get('lakescope_read.java', {}).get('checksum'),
        'java_checksum_equal': c.get('java_read.lakescope', {}).get('checksum') is not None and
        c.get('java_read.lakescope', {}).get('checksum') == c.get('java_read.java', {}).get('checksum'),
    }
    os.makedirs(a.out, exist_ok=True)
    json.dump(res, open(os.path.join(a.out, 'write_report.json'), 'w'), indent=2)
    md = render(res)
    open(os.path.join(a.out, 'write_report.md'), 'w').write(md)
    print(md)


def render(res):
    m = res['machine']
    L = ['# lakescope native write benchmark (P7: `perf.pk_upsert`, %s keys, 5 commits, 4 buckets)' % format(res['keys'], ','), '',
         '- date: %s, lakescope at `%s`' % (res['date'], res['git']),
         '- machine: %d CPUs (%s), %s RAM, %s; %s; %s' % (m['cpus'], m['cpu_model'], m['memory'], m['platform'],
                                                         m['rustc'], m['java']),
         '- load average (1/5/15 min) before: %s, after: %s (the machine is shared; compare ratios, not absolute times)'
         % (res['load_before'], res['load_after']),
         '- each writer: one process creating the table and writing the 5 commits; wall, CPU (user+sys) and peak RSS '
         'from `/usr/bin/time -v`, start-up included. rows/s = rows written (2 x keys: 5 commits x 40% of the keys) / median wall s; '
         'MB/s = bytes of the data files written (10^6 bytes) / median wall s.', '',
         '| writer | rows written | data files | data MB | median wall s | rows/s | data MB/s | median CPU s | rows/CPU-s | median peak RSS MiB | in-process s | runs (wall s) |',
         '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for label, name in WRITERS:
        r = res['writers'].get(label, {})
        walls = ', '.join('%.2f%s' % (x['wall_s'], '' if x.get('exit') == 0 and 'error' not in x else ' (FAILED)')
                          for x in r.get('runs', []))
        if 'rows_per_s' not in r:
            L.append('| %s | FAILED | | | | | | | | | | %s |' % (name, walls))
            continue
        L.append('| %s | %s | %s | %.1f | %.2f | %s | %.2f | %.2f | %s | %.0f | %.2f | %s |' % (
            name, format(r['rows'], ','), r['data_files'], r['data_bytes'] / 1e6, r['median_wall_s'],
            format(int(r['rows_per_s']), ','), r['mb_per_s'], r['median_cpu_s'], format(int(r['rows_per_cpu_s']), ','),
            r['median_rss_mib'], r['median_in_process_s'], walls))
    an = res['anchor']
    L.append('| Java Paimon 0.9 anchor (ANCHORS.md, quiet machine) | %s | 20 | %.1f | %.2f | %s | %.2f | | | %d | | |' % (
        format(an['rows'], ','), an['data_bytes'] / 1e6, an['wall_s'], format(int(an['rows'] / an['wall_s']), ','),
        an['data_bytes'] / 1e6 / an['wall_s'], an['rss_mib']))
    L.append('')
    q = res['ratios_lakescope_vs']
    if 'java_same_run' in q:
        j = q['java_same_run']
        L.append('- lakescope / Java 0.9 in this run: rows/s **%.2fx**, data MB/s %.2fx, rows/CPU-s %.2fx, peak RSS %.2fx'
                 % (j['rows_per_s'], j['mb_per_s'], j['rows_per_cpu_s'], j['peak_rss']))
    if 'java_anchor' in q:
        L.append('- lakescope (this run) / Java anchor (quiet machine): rows/s %.2fx, data MB/s %.2fx'
                 % (q['java_anchor']['rows_per_s'], q['java_anchor']['mb_per_s']))
    if 'java_same_run' in q:
        L.append('- P7 target (>= Java throughput, rows/s): **%s**' % ('met' if q['java_same_run']['rows_per_s'] >= 1 else 'NOT met'))
        L.append('- P10 target (data bytes <= 1.05x Java\'s for the same rows): %.3fx, **%s**'
                 % (q['java_same_run']['data_bytes'], 'met' if q['java_same_run']['data_bytes'] <= 1.05 else 'NOT met'))
    L.append('')
    L.append('## Read-back check (last run\'s tables)')
    L.append('')
    L.append('| reader | table written by | rows | checksum |')
    L.append('|---|---|---|---|')
    for name, v in sorted(res['checks'].items()):
        reader, writer = name.split('.', 1)
        L.append('| %s | %s | %s | %s |' % (reader, writer, format(v['rows'], ',') if 'rows' in v else 'FAILED',
                                            v.get('checksum', v.get('error', ''))))
    c = res['correct']
    L.append('')
    L.append('- rows = keys everywhere: %s; lakescope bench-read checksums equal: %s; Java PerfTool bench checksums equal: %s'
             % (c['rows'], c['lakescope_checksum_equal'], c['java_checksum_equal']))
    return '\n'.join(L) + '\n'


if __name__ == '__main__':
    main()
