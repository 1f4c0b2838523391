#!/usr/bin/env python3
"""Compile every module of tests/corpus/ and tests/conformance/ptx/ for the given AMDGPU archs.

usage: corpus_sweep.py P2N SRC ARCHS [--shard I/N] [--write FILE]

A module must, for every arch, either compile to an ET_DYN HSA code object for that arch with no undefined
symbols, or fail with 'unsupported' diagnostics only. Crashes, internal errors (exit 2) and other errors fail
the test. --write FILE records the counts (tests/amdgpu/UNSUPPORTED.txt); --shard I/N takes every N-th module
from the I-th (0-based) so CTest can run several parts side by side.

Speed: one ptx2native process per module compiles all archs into one P2NCODE1 container (docs/
native-container.md): the process start and LLVM initialisation (~0.2 s, more than one arch's compile) are
paid once per module instead of once per arch. The code objects are checked here, from the container, with a
small ELF reader (no readelf process per object). A module where some arch fails gets no container, so the
archs whose compile succeeded are compiled again together; diagnostics name their arch ('for target gfxNNN'),
and a module whose errors do not say it is compiled arch by arch."""
import collections, concurrent.futures as cf, glob, os, re, struct, subprocess, sys, tempfile

# e_flags & 0xff (EF_AMDGPU_MACH) per arch, e_ident[EI_OSABI] = 64 (AMDGPU HSA), e_machine = 224 (EM_AMDGPU)
MACH = {'gfx90a': 0x3f, 'gfx942': 0x4c, 'gfx950': 0x4f, 'gfx1030': 0x36, 'gfx1100': 0x41, 'gfx1101': 0x46,
        'gfx1102': 0x47, 'gfx1200': 0x48, 'gfx1201': 0x4e}


def check_elf(arch, e):
    """'' if e is an ET_DYN HSA code object for arch without undefined symbols, else why not"""
    if len(e) < 64 or e[:4] != b'\x7fELF' or e[4] != 2 or e[5] != 1:
        return 'not a 64-bit little-endian ELF file'
    etype, machine = struct.unpack_from('<HH', e, 16)
    flags = struct.unpack_from('<I', e, 48)[0]
    if e[7] != 64 or machine != 224 or etype != 3:
        return 'not an HSA ET_DYN code object (osabi %d, machine %d, type %d)' % (e[7], machine, etype)
    if arch in MACH and flags & 0xff != MACH[arch]:
        return 'e_flags 0x%x is not %s' % (flags, arch)
    shoff = struct.unpack_from('<Q', e, 40)[0]
    shentsize, shnum = struct.unpack_from('<HH', e, 58)
    nsym = 0
    for i in range(shnum):
        o = shoff + i * shentsize
        if o + 64 > len(e):
            return 'section header outside the file'
        sh_type = struct.unpack_from('<I', e, o + 4)[0]
        if sh_type not in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
            continue
        off, size = struct.unpack_from('<QQ', e, o + 24)
        entsize = struct.unpack_from('<Q', e, o + 56)[0] or 24
        for s in range(off + entsize, off + size, entsize):  # entry 0 is the null symbol
            name, _, _, shndx = struct.unpack_from('<IBBH', e, s)
            nsym += 1
            if shndx == 0 and name != 0:
                return 'undefined symbol'
    return '' if nsym else 'no symbols'


def read_container(data):
    """{target: code bytes} of a P2NCODE1 container, or None"""
    if len(data) < 24 or data[:8] != b'P2NCODE1':
        return None
    n = struct.unpack_from('<I', data, 12)[0]
    out = {}
    for i in range(n):
        name, _, _, co, cs = struct.unpack_from('<24sIIQQ', data, 24 + 64 * i)
        if co + cs > len(data):
            return None
        out[name.rstrip(b'\0').decode()] = data[co:co + cs]
    return out


def reason(line):
    m = re.search(r"unsupported PTX (instruction '([^']*)'|call to '([^']*)'|[a-z ]+)", line)
    if not m:
        return line[:60]
    k = m.group(2) or m.group(3) or m.group(1)
    return re.sub(r'\.(u|s|b|f)(8|16|32|64)\b.*', '', k) if m.group(2) else k


def link_partner(f):
    """Separate compilation (nvcc -rdc=true): a module X.sm_N.ptx whose .extern symbols X_defs.sm_N.ptx (next to
    it) defines is compiled linked with that partner, `ptx2native X.sm_N.ptx X_defs.sm_N.ptx`, as an -rdc
    program's modules are (passes/link_modules.c); the partner is also swept on its own. [] for other modules."""
    m = re.match(r'(.*)\.(sm_\w+)\.ptx$', f)
    p = m and '%s_defs.%s.ptx' % (m.group(1), m.group(2))
    return [p] if p and os.path.exists(p) else []


def compile_archs(p2n, f, archs, tmp):
    """{arch: ('ok'|'unsupported'|'bad', why)} for the archs compiled in one process"""
    out = os.path.join(tmp, '%d-%d.p2n' % (os.getpid(), abs(hash((f, tuple(archs))))))
    cmd = [p2n, f] + link_partner(f) + ['--offload-arch=' + ','.join(archs), '-o', out]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120 + 60 * len(archs))
    except subprocess.TimeoutExpired:
        return {a: ('bad', 'timeout') for a in archs}
    if r.returncode == 0:
        try:
            with open(out, 'rb') as fh:
                data = fh.read()
            os.unlink(out)
        except OSError as e:
            return {a: ('bad', 'no output: %s' % e) for a in archs}
        if len(archs) == 1 and not data.startswith(b'P2NCODE1'):
            objs = {archs[0]: data}
        else:
            objs = read_container(data)
            if objs is None:
                return {a: ('bad', 'damaged container') for a in archs}
        res = {}
        for a in archs:
            if a not in objs:
                res[a] = ('bad', 'no code object in the container')
            else:
                why = check_elf(a, objs[a])
                res[a] = ('bad', why) if why else ('ok', '')
        return res
    errs = [l for l in r.stderr.splitlines() if ': error: ' in l or l.startswith('error')]
    if r.returncode != 1 or not errs or not all('unsupported' in l for l in errs):
        last = (r.stderr.strip().splitlines() or [''])[-1][:300]
        if len(archs) > 1 and r.returncode == 1:
            return None  # some non-'unsupported' error: find out which arch, one by one
        return {a: ('bad', 'rc=%d %s' % (r.returncode, last)) for a in archs}
    per = collections.defaultdict(set)
    for l in errs:
        m = re.search(r'for target (gfx[0-9a-z]+)', l)
        if not m:
            if len(archs) > 1:
                return None
            per[archs[0]].add(reason(l))
        elif m.group(1) in archs:
            per[m.group(1)].add(reason(l))
    res = {a: ('unsupported', ';'.join(sorted(per[a]))) for a in per}
    rest = [a for a in archs if a not in per]
    if rest:
        again = compile_archs(p2n, f, rest, tmp)
        if again is None:
            return None
        res.update(again)
    return res


def main():
    args = sys.argv[1:]
    write = None
    shard = (0, 1)
    if '--write' in args:
        i = args.index('--write'); write = args[i + 1]; del args[i:i + 2]
    if '--shard' in args:
        i = args.index('--shard'); a, b = args[i + 1].split('/'); shard = (int(a), int(b)); del args[i:i + 2]
    p2n, src = args[0], args[1]
    archs = args[2].split(',')
    files = sorted(glob.glob(os.path.join(src, 'tests/corpus/**/*.ptx'), recursive=True) +
                   glob.glob(os.path.join(src, 'tests/conformance/ptx/**/*.ptx'), recursive=True))
    total = len(files)
    files = files[shard[0]::shard[1]]
    # CI's rotating share (scripts/test.sh): P2N_SHARE=K/N keeps every N-th module of this part, from the K-th
    share = os.environ.get('P2N_SHARE', '0/1') if not write else '0/1'
    sk, sn = (int(x) for x in share.split('/'))
    files = files[sk::sn]
    if sn > 1:
        print('share %d of %d (P2N_SHARE): %d modules of this part' % (sk, sn, len(files)))
    tmp = tempfile.mkdtemp(prefix='p2n-amd-')

    def one(f):
        res = compile_archs(p2n, f, archs, tmp)
        if res is None:
            res = {}
            for a in archs:
                r1 = compile_archs(p2n, f, [a], tmp)
                res.update(r1 if r1 else {a: ('bad', 'unclassified error')})
        return f, res

    res = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(collections.Counter)
    bad = []
    with cf.ThreadPoolExecutor(int(os.environ.get('JOBS', '2'))) as ex:
        for f, per in ex.map(one, files):
            for a in archs:
                st, why = per.get(a, ('bad', 'no result'))
                res[a][st] += 1
                if st == 'unsupported':
                    for k in why.split(';'): reasons[a][k] += 1
                if st == 'bad': bad.append('%s %s: %s' % (a, os.path.relpath(f, src), why))
    os.rmdir(tmp)
    part = '' if shard[1] == 1 else ', part %d of %d: %d modules' % (shard[0] + 1, shard[1], len(files))
    lines = ['# AMDGPU corpus sweep: tests/corpus/ + tests/conformance/ptx/ (%d modules%s)' % (total, part),
             '# generated by tests/amdgpu/corpus_sweep.py --write; a module either compiles or fails with',
             '# unsupported-only diagnostics. Reasons: modules per unsupported construct (first word of the diagnostic).',
             '# Archs with the same results share one list.']
    groups = collections.OrderedDict()
    for a in archs:
        key = (res[a]['ok'], res[a]['unsupported'], res[a]['bad'], tuple(sorted(reasons[a].items())))
        groups.setdefault(key, []).append(a)
    for key, group in groups.items():
        a = group[0]
        lines.append('%s: compiled %d, unsupported %d, other failures %d' % (' '.join(group), res[a]['ok'],
                     res[a]['unsupported'], res[a]['bad']))
        for k, n in sorted(reasons[a].items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append('  %5d  %s' % (n, k))
    text = '\n'.join(lines) + '\n'
    print(text)
    for b in bad: print('FAIL', b)
    if write:
        with open(write, 'w') as fh: fh.write(text)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
