#!/usr/bin/env python3
"""Compile every PTX module of tests/conformance/ptx/, tests/corpus/ (nvcc's ptx/ and the handwritten/ ISA
corpus, as the AMDGPU sweep) and examples/ for spirv64 (SPIR-V 1.4)
and spirv64-1.2, and validate each output with spirv-val (--target-env spv1.4 / opencl2.2, or spv1.2 for a 1.2
module that declares Int64Atomics: see val_env).

Every module must compile to a valid module, or be listed in tests/spirv/UNSUPPORTED.txt with each construct it
is diagnosed 'unsupported' for (or the validator's complaint), and a reason. Fails on: a crash, an internal
error, an LLVM abort, any other error, an invalid module or an unsupported construct that is not listed, and on
stale entries (a listed module/construct that no longer fails that way). A crash is never listable.

  corpus_sweep.py PTX2NATIVE SPIRV-VAL SRCDIR LIST [--write]    (JOBS=N parallel compiles, default 2)

--write rewrites LIST from this run, keeping the reasons of entries that still apply; new entries get the
reason of the first matching pattern in REASONS below, else none (and the check then fails until one is
written by hand)."""
import collections, concurrent.futures as cf, glob, os, re, subprocess, sys, tempfile

ARCHS = (('spirv64', 'spv1.4'), ('spirv64-1.2', 'opencl2.2'))

# default reasons for --write (pattern on the construct key -> reason)
REASONS = [
    (r'^(txq|suq) of this attribute', 'only width/height/depth can be queried on texture/surface objects: NVIDIA\'s JIT '
                                      'refuses the others as well (recorded: tex/txq_unsupported_*, suq_unsupported_*)'),
    (r'^device malloc/free', 'no device heap in the OpenCL SPIR-V environment'),
    (r'^\d+-bit integer arithmetic', 'SPIR-V has no integers wider than 64 bits (what legalisation cannot split)'),
    (r'^indirect call', 'no SPV_INTEL_function_pointers for this call shape'),
    (r"^'(tex|tld4|suld|sust)' ", 'texture/surface instructions: not lowered by the shared emission (any target)'),
    (r'^scalar video \.sat with a \.min/\.max', 'NVIDIA\'s recorded results for this form fit no reading of the ISA: '
                                               'diagnosed on every target (KNOWN_FAILURES.txt), never guessed'),
    (r'^vshl\.sat', 'NVIDIA\'s recorded results for vshl.sat fit no reading of the ISA: diagnosed on every target '
                    '(KNOWN_FAILURES.txt), never guessed'),
    (r"^'wmma' ", 'wmma shapes/types other than m16n16k16 f16->f32 are not lowered by the shared emission (any target)'),
    (r"^'mma' ", 'mma.sync shapes other than m16n8k16 f16->f32 / m16n8k32 s8->s32 are not lowered (any target)'),
    (r"^'cvt' ", 'cvt to fp8 pairs (e4m3x2/e5m2x2 from f16x2) is not lowered by the shared emission (any target)'),
    (r"^'cp' ", 'tensor-map bulk copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor): not lowered (any target)'),
    (r'^kernel requires thread-block clusters', 'no cluster launch: every block is a cluster of one '
                                                '(targets/llvm/emit_cluster.c), a kernel needing more is diagnosed'),
    (r'form not supported by the shared emission', 'instruction form not lowered by the shared emission (any target)'),
    (r'^multisample textures', 'multisample textures: the driver API creates no multisample arrays (graphics interop '
                               'only); not lowered (any target)'),
    (r'^texel offset and depth-compare', 'tex/tld4 with texel offsets or depth compare: not lowered (any target)'),
    (r'^tld4 of this geometry', 'tld4 on cube maps: not lowered (any target)'),
    (r'^(wmma \.f64 with|mma\.sync m8n8k4)', 'tensor-core form whose NVIDIA arithmetic is not recorded yet: diagnosed, '
                                          'never guessed (any target)'),
    (r'^unsupported PTX initializer of', 'a 32-bit variable initialised with a generic 64-bit address: diagnosed on '
                                        'every target rather than truncated'),
    (r'not defined in this module', 'separate compilation (-rdc): SPIR-V output is not linked with other modules'),
]


def val_env(env, spv):
    """The spirv-val environment for one output, as targets/spirv/spirv_finish.c chooses it: OpenCL 2.2 is the only
    OpenCL environment that takes SPIR-V 1.2 (1.2 with cl_khr_il_program and 2.0 take 1.0, 2.1 takes 1.1), but
    Int64Atomics is not in its base environment: the SPIR-V environment spec adds it for devices with
    cl_khr_int64_base_atomics/_extended_atomics (Intel GPUs), and spirv-val has no switch for OpenCL extensions. A
    1.2 module declaring it (64-bit atom.*, the clock counter of spirv_trap.c) is validated as universal 1.2."""
    if env != 'opencl2.2':
        return env
    import struct
    data = open(spv, 'rb').read()
    words = struct.unpack('<%dI' % (len(data) // 4), data[:len(data) // 4 * 4])
    i = 5
    while i + 1 < len(words) and words[i] >> 16:
        op = words[i] & 0xffff
        if op == 17 and words[i + 1] == 12:  # OpCapability Int64Atomics
            return 'spv1.2'
        if op not in (17, 10, 11):  # capabilities, extensions, imports come first
            break
        i += words[i] >> 16
    return env


def key_of(line):
    """The construct an 'unsupported' diagnostic names: the parenthesised reason of an instruction diagnostic,
    else its opcode, else the text after 'for target T: '."""
    m = re.search(r"unsupported PTX instruction '([^']*)' for target \S+(?: \((.*)\))?$", line)
    if m:
        # no reason: a form the shared emission has no lowering for on any target; one entry per opcode
        return m.group(2) or "'%s' (form not supported by the shared emission)" % m.group(1).split('.')[0]
    m = re.search(r'unsupported PTX construct for target \S+: (.*)$', line)
    if m:
        return m.group(1)
    return line.split(': error: ', 1)[-1][:120]


def link_partner(f):
    """Separate compilation (nvcc -rdc=true): a module X.sm_N.ptx whose .extern symbols X_defs.sm_N.ptx (next to
    it) defines is compiled linked with that partner, `ptx2native X.sm_N.ptx X_defs.sm_N.ptx`, as an -rdc
    program's modules are (passes/link_modules.c); the partner is also swept on its own. [] for other modules."""
    m = re.match(r'(.*)\.(sm_\w+)\.ptx$', f)
    p = m and '%s_defs.%s.ptx' % (m.group(1), m.group(2))
    return [p] if p and os.path.exists(p) else []


def one(p2n, val, tmp, arch, env, f):
    out = os.path.join(tmp, '%s-%d.spv' % (arch, abs(hash(f))))
    try:
        r = subprocess.run([p2n, f] + link_partner(f) + ['--offload-arch=' + arch, '-o', out], capture_output=True,
                           text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return 'bad', ['timeout']
    except OSError as e:
        return 'bad', ['cannot run the compiler: %s' % e]
    if 'LLVM ERROR' in r.stderr or r.returncode not in (0, 1):
        return 'bad', ['exit %d: %s' % (r.returncode, (r.stderr.strip().splitlines() or [''])[-1][:300])]
    if r.returncode == 0:
        env = val_env(env, out)
        v = subprocess.run([val, '--target-env', env, out], capture_output=True, text=True)
        os.unlink(out)
        if v.returncode == 0:
            return 'ok', []
        err = next((l for l in (v.stdout + v.stderr).splitlines() if 'error' in l), 'spirv-val failed')
        return 'listed', ['invalid (%s): %s' % (env, re.sub(r'^error: (line \d+: )?', '', err.strip())[:160])]
    errs = [l for l in r.stderr.splitlines() if ': error: ' in l or l.startswith('error')]
    if not errs or not all('unsupported' in l for l in errs):
        return 'bad', ['exit 1 not only unsupported: %s' % ((errs or r.stderr.splitlines() or [''])[0][:300])]
    return 'listed', sorted({key_of(l) for l in errs})


def read_list(path):
    entries, problems = {}, []
    if os.path.exists(path):
        for n, line in enumerate(open(path), 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split(' | ')]
            if len(parts) != 3 or len(parts[0].split()) != 2:
                problems.append('%s:%d: not "ARCH MODULE | CONSTRUCT | REASON"' % (path, n))
                continue
            arch, mod = parts[0].split()
            if not parts[2]:
                problems.append('%s:%d: no reason given for %s %s' % (path, n, arch, mod))
            entries[(arch, mod, parts[1])] = parts[2]
    return entries, problems


def main():
    args = sys.argv[1:]
    write = '--write' in args
    args = [a for a in args if a != '--write']
    p2n, val, src, lst = args
    files = sorted(glob.glob(os.path.join(src, 'tests/conformance/ptx/**/*.ptx'), recursive=True) +
                   glob.glob(os.path.join(src, 'tests/corpus/**/*.ptx'), recursive=True) +
                   glob.glob(os.path.join(src, 'examples/*.ptx')))
    # CI's rotating share (scripts/test.sh): P2N_SHARE=K/N sweeps every N-th module from the K-th; list lines of
    # the other modules are not judged (neither missing nor stale) in that run
    sk, sn = (int(x) for x in (os.environ.get('P2N_SHARE', '0/1') if not write else '0/1').split('/'))
    total = len(files)
    files = files[sk::sn]
    if sn > 1:
        print('share %d of %d (P2N_SHARE): %d of %d modules' % (sk, sn, len(files), total))
    swept = set(os.path.relpath(f, src) for f in files)
    tmp = tempfile.mkdtemp(prefix='p2n-spv-')
    jobs = [(a, e, f) for a, e in ARCHS for f in files]
    with cf.ThreadPoolExecutor(int(os.environ.get('JOBS', '2'))) as ex:
        results = list(ex.map(lambda j: (j[0], os.path.relpath(j[2], src)) + one(p2n, val, tmp, *j), jobs))
    os.rmdir(tmp)
    listed, problems = read_list(lst)
    found, bad, counts = {}, [], collections.Counter()
    for arch, mod, st, keys in results:
        counts[(arch, st)] += 1
        if st == 'bad':
            bad.append('FAIL %s %s: %s' % (arch, mod, keys[0]))
        for k in keys if st == 'listed' else []:
            found[(arch, mod, k)] = listed.get((arch, mod, k), '')
    for e in found:
        if e not in listed:
            problems.append('NOT LISTED %s %s | %s' % e)
    for e in listed:
        if e not in found and e[1] in swept:
            problems.append('STALE (no longer diagnosed) %s %s | %s' % e)
    for a, _ in ARCHS:
        print('%s: valid %d, listed (unsupported/invalid) %d, failures %d' %
              (a, counts[(a, 'ok')], counts[(a, 'listed')], counts[(a, 'bad')]))
    if write:
        with open(lst, 'w') as fh:
            fh.write(HEADER % len(files))
            for arch, mod, k in sorted(found):
                r = found[(arch, mod, k)] or next((t for p, t in REASONS if re.search(p, k)), '')
                fh.write('%s %s | %s | %s\n' % (arch, mod, k, r))
        print('wrote', lst)
        listed, problems = read_list(lst)
    for b in bad + problems:
        print(b)
    return 1 if bad or problems else 0


HEADER = '''# SPIR-V modules that do not compile to a valid module, per target, with the construct and why. Checked by the
# CTest spirv.corpus_sweep (tests/spirv/corpus_sweep.py, label slow): every module of tests/conformance/ptx,
# tests/corpus (ptx/, handwritten/) and examples (%d) is compiled for spirv64 and spirv64-1.2 and validated with spirv-val
# (--target-env spv1.4 / opencl2.2; spv1.2 for a 1.2 module with Int64Atomics, see val_env). A module that fails for
# a construct not listed here fails the test, and so does an entry that no longer applies. Regenerate with --write (keeps reasons; new entries need one).
# ARCH MODULE | CONSTRUCT (the diagnostic's reason, or the validator's first error) | WHY
'''

if __name__ == '__main__':
    sys.exit(main())
