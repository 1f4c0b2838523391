#!/usr/bin/env python3
"""gen-driver-api.py — the driver-API coverage table and the refused-function stubs, from three sources:

  * CUDA's cuda.h: every `CUresult CUDAAPI cuXxx(` declaration. The name a user writes (cuMemAlloc) is turned
    into its ABI symbol by cuda.h's own version macros (#define cuMemAlloc cuMemAlloc_v2); the declarations of
    the __CUDA_API_VERSION_INTERNAL block are the older ABIs of the same names (cuMemAlloc, cuCtxCreate_v3).
    cuGetProcAddress is asked for an API by its name without the _vN suffix (cudart: cuCtxGetDevice@13000 ->
    cuCtxGetDevice_v2), so that name is the row key. The driver headers next to cuda.h (cudaProfiler.h,
    cudaGL.h, cudaEGL.h, cudaVDPAU.h) are read the same way: cudart asks for their functions too.
  * driver-stub/procaddr.c: the table cuGetProcAddress answers from, {name, version, symbol[, ptds symbol]}.
    A name there is implemented.
  * driver-stub/api-status.txt (hand-kept): `name partial: what is missing`, `name refused: why`, or
    `name refused CUDA_ERROR_X: why` where CUDA documents another error than CUDA_ERROR_NOT_SUPPORTED.

Writes docs/driver-api.md and driver-stub/refused_table.c (stubs for the refused names; cuGetProcAddress hands
them out). Exits 1, naming each, when cuda.h declares a name that is neither in procaddr.c's table nor in
api-status.txt, when api-status.txt names something cuda.h does not declare, or when it refuses a name
procaddr.c implements: a function can never go missing silently.

  gen-driver-api.py CUDA_H PROCADDR_C API_STATUS_TXT OUT_MD OUT_C
"""
import os
import re
import sys
import tempfile

DECL = re.compile(r'CUresult\s+CUDAAPI\s+(cu\w+)\s*\(')
DEFGROUP = re.compile(r'\\defgroup\s+(\w+)\s+(.*)')
MACRO = re.compile(r'^\s*#define\s+(cu\w+)\s+(\S.*?)\s*$')
PT_MACRO = re.compile(r'__CUDA_API_(PTDS|PTSZ)\((\w+)\)')
PROC_ROW = re.compile(r'\b[EP]\(\s*"(\w+)"\s*,\s*(\d+)\s*,\s*(\w+)\s*(?:,\s*(\w+)\s*)?\)')
STATUS_LINE = re.compile(r'^(cu\w+)\s+(partial|refused)(?:\s+(CUDA_ERROR_\w+))?\s*:\s*(\S.*)$')
VERSION_SUFFIX = re.compile(r'_v(\d+)$')
PER_THREAD_SUFFIX = re.compile(r'_(ptds|ptsz)$')


def fail(msg):
    sys.stderr.write('gen-driver-api: ' + msg + '\n')


def api_name(symbol):
    """cuGetProcAddress's name for a declared name: without the _ptds/_ptsz and _vN ABI suffixes."""
    return VERSION_SUFFIX.sub('', PER_THREAD_SUFFIX.sub('', symbol))


def abi_order(symbol):
    m = VERSION_SUFFIX.search(symbol)
    return (int(m.group(1)) if m else 1, symbol)


def parse_header(path, apis):
    """Adds the functions one header declares to apis (api name -> row)."""
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    first_group = next((i for i, l in enumerate(lines) if DEFGROUP.search(l)), len(lines))
    # version macros, before the first \defgroup: user name -> ABI symbol; a PTDS/PTSZ wrapper means the
    # name also has a per-thread-default-stream symbol
    macros, per_thread = {}, {}
    for line in lines[:first_group]:
        m = MACRO.match(line)
        if not m:
            continue
        name, target = m.group(1), m.group(2)
        pt = PT_MACRO.search(target)
        if pt:
            target = pt.group(2)
            per_thread[name] = pt.group(1).lower()
        if re.fullmatch(r'cu\w+', target) and target != name:
            macros[name] = target
    # a small tracker of #if nesting: a declaration under `#if defined(__CUDA_API_VERSION_INTERNAL)` is an
    # older ABI of a name; one under `#if defined(_WIN32)` / `#ifdef _WIN32` is not on Linux
    stack, section = [], ('', '')
    carry = ''   # `CUresult CUDAAPI` alone on a line: the name is on the next one
    for line in lines:
        line, carry = carry + line, ''
        if line.rstrip().endswith('CUDAAPI'):
            carry = line.rstrip() + ' '
            continue
        g = DEFGROUP.search(line)
        if g:
            section = (g.group(1), g.group(2).strip())
        d = line.strip()
        if d.startswith('#if'):
            cond = d.split(None, 1)[1] if ' ' in d else ''
            kind = None
            if re.fullmatch(r'defined\(__CUDA_API_VERSION_INTERNAL\)', cond):
                kind = 'legacy'
            elif re.fullmatch(r'(defined\(_WIN32\)|_WIN32)', cond) and not d.startswith('#ifndef'):
                kind = 'win32'
            stack.append(kind)
            continue
        if d.startswith('#elif') or d.startswith('#else'):
            if stack:
                stack[-1] = None
            continue
        if d.startswith('#endif'):
            if stack:
                stack.pop()
            continue
        for m in DECL.finditer(line):
            if 'win32' in stack:
                continue
            legacy = 'legacy' in stack
            written = m.group(1)
            symbol = written if legacy else macros.get(written, written)
            key = api_name(symbol)
            row = apis.setdefault(key, {'section': None, 'written': set(), 'abis': set(), 'current': set(),
                                        'pt': None})
            pt = PER_THREAD_SUFFIX.search(symbol)
            if pt:   # a legacy per-thread-default-stream symbol: a flag of the row, not an ABI of its own
                row['pt'] = pt.group(1)
                continue
            row['abis'].add(symbol)
            if not legacy:
                row['written'].add(written)
                row['current'].add(symbol)
                if row['section'] is None:
                    row['section'] = section
                if written in per_thread:
                    row['pt'] = per_thread[written]


# CUDA's other driver-API headers, next to cuda.h: cudart asks for their functions too (profiler, GL, EGL, VDPAU)
SIBLING_HEADERS = ('cudaProfiler.h', 'cudaGL.h', 'cudaEGL.h', 'cudaVDPAU.h')


def parse_cuda_h(path):
    apis = {}
    parse_header(path, apis)
    if not apis:
        raise SystemExit('gen-driver-api: %s declares no CUresult CUDAAPI function' % path)
    for sib in SIBLING_HEADERS:
        p = os.path.join(os.path.dirname(path), sib)
        if os.path.isfile(p):
            parse_header(p, apis)
    for row in apis.values():
        if row['section'] is None:   # only older ABIs declared (cuGraphInstantiate: users get ...WithFlags)
            row['section'] = ('CUDA_LEGACY', 'Older ABIs of renamed functions')
    return apis


def parse_procaddr(path):
    text = open(path, encoding='utf-8').read()
    start = text.find('table[] = {')
    end = text.find('\n};', start)
    if start < 0 or end < 0:
        raise SystemExit('gen-driver-api: %s: the proc_entry table was not found' % path)
    rows = {}
    for m in PROC_ROW.finditer(text[start:end]):
        rows.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3), m.group(4)))
    if not rows:
        raise SystemExit('gen-driver-api: %s: the proc_entry table is empty' % path)
    return rows


def parse_status(path):
    status, ok = {}, True
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        m = STATUS_LINE.match(line)
        if not m:
            fail('%s:%d: expected `cuName partial: ...`, `cuName refused: ...` or `cuName refused CUDA_ERROR_X: ...`'
                 % (path, n))
            ok = False
            continue
        name, kind, err, why = m.groups()
        if name in status:
            fail('%s:%d: %s is classified twice' % (path, n, name))
            ok = False
        if kind == 'partial' and err:
            fail('%s:%d: an error code goes with `refused` only' % (path, n))
            ok = False
        if '"' in why or '\\' in why:
            fail('%s:%d: the reason may not contain quotes or backslashes (it becomes a C string)' % (path, n))
            ok = False
        status[name] = (kind, err or 'CUDA_ERROR_NOT_SUPPORTED', why.strip(), n)
    return status, ok


def classify(apis, proc, status, status_path):
    ok = True
    for name in sorted(status):
        if name not in apis:
            fail('%s:%d: %s is not a function cuda.h declares' % (status_path, status[name][3], name))
            ok = False
        elif status[name][0] == 'refused' and name in proc:
            fail('%s:%d: %s is refused but driver-stub/procaddr.c implements it' % (status_path, status[name][3], name))
            ok = False
    for name in sorted(proc):
        if name not in apis:
            fail('procaddr.c: %s is not a function cuda.h declares' % name)
            ok = False
    rows = []
    for name in sorted(apis):
        a = apis[name]
        abis = sorted(a['abis'], key=abi_order)
        if name in proc:
            have = {sym for _, sym, _ in proc[name]}
            missing = [s for s in abis if s not in have and s in a['current']]
            older = [s for s in abis if s not in have and s not in a['current']]
            notes = []
            if name in status and status[name][0] == 'partial':
                notes.append(status[name][2])
            if missing:
                notes.append('current ABI not provided: ' + ', '.join(missing))
            kind = 'partial' if notes else 'implemented'
            if older:   # e.g. the 32-bit-CUdeviceptr ABIs of CUDA < 3.2: no current program asks for them
                notes.append('older ABI not provided: ' + ', '.join(older))
            since = {}
            for ver, sym, _ in proc[name]:
                since[sym] = min(ver, since.get(sym, ver))
            a = dict(a, since=since)
            rows.append((name, a, abis, kind, '; '.join(notes), None))
        elif name in status:
            kind, err, why, _ = status[name]
            if kind != 'refused':
                fail('%s:%d: %s is `partial` but driver-stub/procaddr.c has no entry for it' % (status_path,
                     status[name][3], name))
                ok = False
                continue
            rows.append((name, a, abis, 'refused', why, err))
        else:
            fail('cuda.h declares %s (%s) but it is neither in driver-stub/procaddr.c\'s table nor in %s: '
                 'implement it or add `%s refused: <why>`' % (name, a['section'][1], status_path, name))
            ok = False
    return rows, ok


def render_md(rows, cuda_h):
    counts = {k: sum(1 for r in rows if r[3] == k) for k in ('implemented', 'partial', 'refused')}
    out = ['# Driver API coverage (CUDA 13 `cuda.h`)', '',
           'GENERATED by `scripts/gen-driver-api.py` from `cuda.h`, `driver-stub/procaddr.c` (what',
           '`cuGetProcAddress` hands out) and `driver-stub/api-status.txt` (why a function is partial or refused).',
           'Do not edit: edit those and regenerate (`python3 scripts/gen-driver-api.py /usr/local/cuda/include/cuda.h',
           'driver-stub/procaddr.c driver-stub/api-status.txt docs/driver-api.md driver-stub/refused_table.c`).',
           'ctest `driver.api_table` fails when this file is stale or `cuda.h` declares a function that is in neither source.',
           '',
           'One row per API name as `cuGetProcAddress` is asked for it (the name without its `_vN` suffix); '
           '**ABIs** are the',
           'symbols cuda.h declares for it, oldest first, each implemented one with the first CUDA version whose',
           '`cuGetProcAddress` request gets it (`@3020` = CUDA 3.2); `+ptds`/`+ptsz`: also a per-thread-default-stream',
           'symbol.',
           '',
           '* **implemented**: in `cuGetProcAddress`\'s table and exported, with CUDA\'s documented semantics.',
           '* **partial**: implemented, with the limits named.',
           '* **refused**: `cuGetProcAddress` returns a stub (status `CU_GET_PROC_ADDRESS_SUCCESS`) that returns the error',
           '  named and prints once per process on stderr: `libcuda (ptx2native): cuFoo is not supported (<why>)`.',
           '',
           '%d API names: %d implemented, %d partial, %d refused.' % (len(rows), counts['implemented'],
                                                                    counts['partial'], counts['refused']),
           '']
    section = None
    for name, a, abis, kind, note, err in sorted(rows, key=lambda r: (r[1]['section'][1], r[0])):
        if a['section'] != section:
            section = a['section']
            out += ['', '## %s' % section[1], '', '| API | ABIs | status | notes |', '|---|---|---|---|']
        since = a.get('since', {})
        abi_text = ', '.join('`%s`' % s + (' @%d' % since[s] if s in since else '') for s in abis)
        api_text = '`%s`' % name
        other = sorted(w for w in a['written'] if api_name(w) != name)
        if other:   # a version macro renames it: cuGraphInstantiate is cuGraphInstantiateWithFlags
            api_text += ' (written ' + ', '.join('`%s`' % w for w in other) + ')'
        if a['pt']:
            abi_text += ' +' + a['pt']
        if kind == 'refused' and err != 'CUDA_ERROR_NOT_SUPPORTED':
            note = '%s (returns %s)' % (note, err)
        out.append('| %s | %s | %s | %s |' % (api_text, abi_text, kind, note.replace('|', '\\|')))
    return '\n'.join(out) + '\n'


def render_c(rows):
    refused = [r for r in rows if r[3] == 'refused']
    out = ['/* refused_table.c — GENERATED by scripts/gen-driver-api.py from cuda.h and driver-stub/api-status.txt;',
           ' * do not edit. One stub per cuda.h function the stub does not implement: cuGetProcAddress hands it out',
           ' * (procaddr.c) so that a call names the missing function (refused.h). The stubs take no parameters: the',
           ' * SysV ABI lets a callee declared without parameters be called with any, and a stub reads none. */',
           '#include "refused.h"', '',
           '#define N %d' % len(refused), '',
           '_Atomic unsigned char p2n_refused_said[N];',
           'const size_t p2n_refused_count = N;', '',
           '#define STUB(i, name) \\',
           '    static CUresult refused_##name(void) { return p2n_refused_call(&p2n_refused_table[i], &p2n_refused_said[i]); }']
    for i, r in enumerate(refused):
        out.append('STUB(%d, %s)' % (i, r[0]))
    out += ['', '/* sorted by name (bsearch) */', 'const p2n_refused_entry p2n_refused_table[N] = {']
    for name, a, abis, kind, why, err in refused:
        out.append('    {"%s", "%s", %s, (void *)refused_%s},' % (name, why, err, name))
    out += ['};', '']
    return '\n'.join(out)


def write_atomic(path, data):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.gen-driver-api.')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__.split('\n\n')[-1].strip() + '\n')
        return 2
    cuda_h, procaddr_c, status_txt, out_md, out_c = argv[1:]
    for p in (cuda_h, procaddr_c, status_txt):
        if not os.path.isfile(p):
            fail('%s: no such file' % p)
            return 1
    apis = parse_cuda_h(cuda_h)
    proc = parse_procaddr(procaddr_c)
    status, ok1 = parse_status(status_txt)
    rows, ok2 = classify(apis, proc, status, status_txt)
    if not (ok1 and ok2):
        return 1   # no partial output
    # refused names must be sorted by strcmp order for bsearch: Python's str order on ASCII is the same
    rows.sort(key=lambda r: r[0])
    write_atomic(out_md, render_md(rows, cuda_h))
    write_atomic(out_c, render_c(rows))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
