"""Summarise scripts/bench.sh runs into report.json and report.md (rows/s, peak RSS, ratios, targets).

python3 report.py --work DIR --out DIR [--load BEFORE AFTER] [--git REV]
"""
import argparse
import datetime
import glob
import json
import os
import platform
import re
import statistics
import subprocess

READERS = [  # label, display name
    ('lakescope', 'lakescope (bench-read, 1 thread)'),
    ('lakescope_threads', 'lakescope (bench-read, --threads $(nproc))'),
    ('java', 'Java Paimon 0.9.0'),
    ('pypaimon', 'pypaimon 2.1.0 (pure Python)'),
    ('pypaimon_rust', 'pypaimon 2.1.0 + pypaimon-rust 0.4.0'),
]
TABLES = ['pk_upsert', 'append_rows']
# The Iceberg table of append_rows' rows (scripts/bench/iceberg_perf.py): its reads, for information.
ICEBERG = 'iceberg_append_rows'


def parse_time(path):
    txt = open(path).read()
    wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)', txt).group(1)
    parts = [float(x) for x in wall.split(':')]
    secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) == 3 else 0)
    rss = int(re.search(r'Maximum resident set size \(kbytes\): (\d+)', txt).group(1))
    user = float(re.search(r'User time \(seconds\): (\S+)', txt).group(1))
    sys_ = float(re.search(r'System time \(seconds\): (\S+)', txt).group(1))
    code = int(re.search(r'Exit status: (\d+)', txt).group(1))
    return {'wall_s': secs, 'rss_mib': rss / 1024, 'cpu_s': user + sys_, 'exit': code}


def cmd(args):
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=30)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except Exception:
        return 'n/a'


def machine():
    model = 'unknown'
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('model name'):
                model = line.split(':', 1)[1].strip()
                break
    except OSError:
        pass
    mem = 'unknown'
    try:
        kb = int(re.search(r'MemTotal:\s+(\d+)', open('/proc/meminfo').read()).group(1))
        mem = '%.0f GiB' % (kb / 2 ** 20)
    except Exception:
        pass
    return {'cpus': os.cpu_count(), 'cpu_model': model, 'memory': mem, 'platform': platform.platform(),
            'rustc': cmd(['rustc', '--version']), 'java': cmd(['java', '-version'])}


def table_facts(work, tbl):
    if tbl == ICEBERG:
        files = glob.glob(os.path.join(work, 'iceberg', 'warehouse', 'perf', 'append_rows', 'data', '*'))
    else:
        files = glob.glob(os.path.join(work, 'warehouse', 'perf.db', tbl, '**', 'data-*'), recursive=True)
    return {'data_files': len(files), 'data_bytes': sum(os.path.getsize(f) for f in files)}


def collect(work, label, tbl):
    runs = []
    for tf in sorted(glob.glob(os.path.join(work, 'runs', '%s.%s.*.time' % (label, tbl)))):
        r = parse_time(tf)
        out = open(tf[:-5] + '.out').read().strip().splitlines()
        try:
            r.update(json.loads(out[-1]))
        except Exception:
            r['error'] = (out[-1] if out else '') + ' ' + open(tf[:-5] + '.err').read()[-400:]
        runs.append(r)
    if not runs:
        return None
    ok = [r for r in runs if r.get('exit') == 0 and 'rows' in r and 'error' not in r]
    agg = {'runs': runs}
    if ok:
        wall = statistics.median(r['wall_s'] for r in ok)
        cpu = statistics.median(r['cpu_s'] for r in ok)
        agg.update({'rows': ok[0]['rows'], 'median_wall_s': wall, 'median_cpu_s': cpu,
                    'median_rss_mib': statistics.median(r['rss_mib'] for r in ok),
                    'median_in_process_s': statistics.median(r['seconds'] for r in ok),
                    'rows_per_s': ok[0]['rows'] / wall, 'rows_per_cpu_s': ok[0]['rows'] / max(cpu, 1e-3),
                    'checksum': ok[0].get('checksum'), 'native_fallbacks': sorted(
                        {x for r in ok for x in r.get('native_fallbacks', [])})})
    return agg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--work', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--load', nargs=2, default=['?', '?'])
    ap.add_argument('--git', default='?')
    a = ap.parse_args()
    res = {'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
           'git': a.git, 'machine': machine(), 'load_before': a.load[0], 'load_after': a.load[1],
           'tables': {}, 'targets': []}
    iceberg = [ICEBERG] if collect(a.work, 'lakescope', ICEBERG) else []
    for tbl in TABLES + iceberg:
        readers = {}
        for label, _ in READERS:
            agg = collect(a.work, label, tbl)
            if agg is not None:
                readers[label] = agg
        ls = readers.get('lakescope', {})
        ratios = {}
        for label in ('java', 'pypaimon', 'pypaimon_rust'):
            other = readers.get(label, {})
            if 'rows_per_s' in ls and 'rows_per_s' in other:
                ratios[label] = {'rows_per_s': ls['rows_per_s'] / other['rows_per_s'],
                                 'rows_per_cpu_s': ls['rows_per_cpu_s'] / other['rows_per_cpu_s'],
                                 'peak_rss': ls['median_rss_mib'] / other['median_rss_mib']}
                if ls['rows'] != other['rows']:
                    ratios[label]['row_count_mismatch'] = [ls['rows'], other['rows']]
        res['tables'][tbl] = {'facts': table_facts(a.work, tbl),
                              'readers': readers, 'ratios_lakescope_vs': ratios}
        threaded = readers.get('lakescope_threads', {})
        if 'rows_per_s' in ls and 'rows_per_s' in threaded:
            speedup = threaded['rows_per_s'] / ls['rows_per_s']
            res['tables'][tbl]['threads_speedup'] = speedup
            if tbl != ICEBERG:  # the P8 goal names the Paimon reads
                res['targets'].append({'id': 'P8 %s' % tbl,
                                       'what': 'perf.%s rows/s on %d threads >= 1.7x one thread' % (
                                           tbl, os.cpu_count()),
                                       'ratio': speedup, 'need': 1.7, 'met': speedup >= 1.7})
            if threaded['rows'] != ls['rows']:
                res['tables'][tbl]['threads_row_count_mismatch'] = [threaded['rows'], ls['rows']]
    pk = res['tables']['pk_upsert']['ratios_lakescope_vs']
    if 'pypaimon_rust' in pk:
        res['targets'].append({'id': 'P1', 'what': 'perf.pk_upsert rows/s (wall, start-up included) >= 2x pypaimon-rust',
                               'ratio': pk['pypaimon_rust']['rows_per_s'], 'need': 2.0,
                               'met': pk['pypaimon_rust']['rows_per_s'] >= 2.0})
    if 'java' in pk:
        res['targets'].append({'id': 'P1 (secondary)', 'what': 'perf.pk_upsert rows/s >= ~4x Java Paimon 0.9',
                               'ratio': pk['java']['rows_per_s'], 'need': 4.0,
                               'met': pk['java']['rows_per_s'] >= 4.0})
    os.makedirs(a.out, exist_ok=True)
    json.dump(res, open(os.path.join(a.out, 'report.json'), 'w'), indent=2)
    md = render(res)
    open(os.path.join(a.out, 'report.md'), 'w').write(md)
    print(md)


def render(res):
    m = res['machine']
    L = ['# lakescope native read benchmark', '',
         '- date: %s, lakescope at `%s`' % (res['date'], res['git']),
         '- machine: %d CPUs (%s), %s RAM, %s; %s; %s' % (m['cpus'], m['cpu_model'], m['memory'], m['platform'],
                                                         m['rustc'], m['java']),
         '- load average (1/5/15 min) before: %s, after: %s (the machine is shared; compare ratios, not absolute times)'
         % (res['load_before'], res['load_after']),
         '- every reader: one process, one full scan of the latest snapshot, rows counted and every column touched; '
         'wall time and peak RSS from `/usr/bin/time -v`, start-up included. rows/s = logical rows / median wall s; '
         'rows/CPU-s = logical rows / median (user+sys) s, which is less sensitive to other load on the machine.', '']
    L.append('## Targets')
    L.append('')
    for t in res['targets']:
        L.append('- **%s** %s: %.2fx -> **%s**' % (t['id'], t['what'], t['ratio'], 'met' if t['met'] else 'NOT met'))
    L.append('')
    for tbl, d in res['tables'].items():
        f = d['facts']
        L.append('## Iceberg `perf.append_rows` (pyiceberg, the rows of `perf.append_rows`; for information)'
                 if tbl == ICEBERG else '## `perf.%s`' % tbl)
        L.append('')
        L.append('%d data files, %.1f MiB.' % (f['data_files'], f['data_bytes'] / 2 ** 20))
        L.append('')
        L.append('| reader | rows | median wall s | rows/s | median CPU s | rows/CPU-s | median peak RSS MiB | in-process s | runs (wall s) |')
        L.append('|---|---|---|---|---|---|---|---|---|')
        for label, name in READERS:
            r = d['readers'].get(label)
            if r is None:
                continue
            walls = ', '.join('%.2f%s' % (x['wall_s'], '' if x.get('exit') == 0 and 'error' not in x else ' (FAILED)')
                              for x in r['runs'])
            if 'rows' not in r:
                L.append('| %s | FAILED | | | | | | | %s |' % (name, walls))
                continue
            if label == 'pypaimon_rust':
                name += ' (native fallbacks: %s)' % (', '.join(r['native_fallbacks']) or 'none')
            L.append('| %s | %s | %.2f | %s | %.2f | %s | %.0f | %.2f | %s |' % (
                name, format(r['rows'], ','), r['median_wall_s'], format(int(r['rows_per_s']), ','), r['median_cpu_s'],
                format(int(r['rows_per_cpu_s']), ','), r['median_rss_mib'], r['median_in_process_s'], walls))
        L.append('')
        if 'threads_speedup' in d:
            L.append('Speed-up of `--threads $(nproc)` over `--threads 1` (rows/s, wall): **%.2fx**%s' % (
                d['threads_speedup'], ' ROW COUNT MISMATCH %s' % d['threads_row_count_mismatch']
                if 'threads_row_count_mismatch' in d else ''))
            L.append('')
        if d['ratios_lakescope_vs']:
            L.append('| lakescope vs | rows/s ratio | rows/CPU-s ratio | peak RSS ratio |')
            L.append('|---|---|---|---|')
            for label, name in READERS[1:]:
                q = d['ratios_lakescope_vs'].get(label)
                if q:
                    L.append('| %s | %.2fx | %.2fx | %.2fx |%s' % (
                        name, q['rows_per_s'], q['rows_per_cpu_s'], q['peak_rss'],
                        ' ROW COUNT MISMATCH %s' % q['row_count_mismatch'] if 'row_count_mismatch' in q else ''))
            L.append('')
    return '\n'.join(L) + '\n'


if __name__ == '__main__':
    main()
