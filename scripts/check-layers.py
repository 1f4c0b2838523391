#!/usr/bin/env python3
"""check-layers.py — the house's direction rules that a compiler cannot check by itself (ctest `layers.compiler`).

    check-layers.py SRCDIR

The build enforces most of the direction: each layer is its own library whose include directories name only the
layers below it, so an include of a higher layer's header does not compile. What include paths cannot stop is
checked here:
  1. no source file reaches around its include path into another layer with a relative include
     (`#include "../../driver-stub/x.h"`; `../` inside one's own layer folder is fine);
  2. shared emission (targets/llvm/) names no target: no target header (no header of targets/host/,
     targets/amdgpu/, targets/spirv/), family, triple, processor, target-specific intrinsic or a target's own
     symbol (the host's thread loop, host-native) appears in its code or strings
     (comments may explain); a target is its table, and what only one target emits is reached through its hooks;
  3. the lower layers include nothing of the upper ones by name: abi/ includes no project header outside abi/,
     ir/ nothing of frontend/passes/targets, passes/ nothing of frontend/targets, the runtime (driver-stub/)
     nothing of the compiler but its public API (targets/ptx2native.h).
Prints one line per violation (file:line: rule: text) and exits 1 if there is any.
"""
import os
import re
import sys

SRC_EXT = ('.c', '.h', '.cpp')

# rule 2: words that name a target (or select one) in shared emission
TARGET_WORDS = re.compile(r'\b(TARGET_(HOST|AMDGPU|SPIRV)|target_family|amdgpu\w*|AMDGPU\w*|spirv\w*|SPIRV\w*|amdgcn\w*|'
                          r'x86_64|x86-64\w*|gfx\d+\w*|intel_\w+|__spirv\w*|nvptx|'
                          # the host's own: its files' symbols (host_abi.h is the ABI every target shares, and
                          # host_descriptor a table property AMDGPU has too), the thread-loop planner and entries,
                          # the host-native choice
                          r'host_(?!abi\b|descriptor\b)\w+|thread_loop\w*|tl_(begin|finish|sync_ctx)|'
                          r'native_cpu|LLVMGetHostCPU\w*)\b')

# rule 2: the target folders, none of whose headers shared emission may include
TARGET_FOLDERS = [os.path.join('targets', t) for t in ('host', 'amdgpu', 'spirv')]

# rule 3: per folder, the project folders whose headers it must not include by name
HEADERS_OF = {}


def strip_comments(text):
    """text with comments replaced by spaces (newlines kept, so line numbers stay); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1]); i = j + 1
        elif text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        else:
            out.append(c); i += 1
    return ''.join(out)


def sources(root, folder):
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for f in sorted(files):
            if f.endswith(SRC_EXT):
                yield os.path.join(dirpath, f)


def headers(root, folder):
    return {os.path.basename(p) for p in sources(root, folder) if p.endswith('.h')}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = []
    layers = ['abi', 'ir', 'frontend', 'passes', 'targets', 'fatbin', 'driver-stub']
    own = {layer: headers(root, layer) for layer in layers}
    # what each folder must not include (by header name; names unique to that folder)
    forbid = {
        'abi': ['ir', 'frontend', 'passes', 'targets', 'fatbin', 'driver-stub'],
        'ir': ['frontend', 'passes', 'targets', 'fatbin', 'driver-stub'],
        'frontend': ['passes', 'targets', 'fatbin', 'driver-stub'],
        'passes': ['frontend', 'targets', 'fatbin', 'driver-stub'],
        'targets': ['fatbin', 'driver-stub'],
        'fatbin': ['driver-stub'],
        'driver-stub': ['ir', 'frontend', 'passes', 'targets'],
    }
    public_api = {'ptx2native.h'}
    for layer in layers:
        mine = own[layer]
        banned = {}
        for other in forbid[layer]:
            for h in own[other] - mine - public_api:
                banned.setdefault(h, other)
        for path in sources(root, layer):
            rel = os.path.relpath(path, root)
            text = strip_comments(open(path, encoding='utf-8', errors='replace').read())
            for ln, line in enumerate(text.split('\n'), 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                if inc.startswith('..'):
                    target = os.path.relpath(os.path.normpath(os.path.join(os.path.dirname(path), inc)), root)
                    if target.split(os.sep)[0] != layer:
                        bad.append('%s:%d: relative include reaches into %s: %s' % (rel, ln, target, inc))
                base = os.path.basename(inc)
                if base in banned:
                    bad.append('%s:%d: %s includes %s of %s/ (a layer above or beside it)' % (rel, ln, layer, inc,
                                                                                         banned[base]))
    shared = os.path.join('targets', 'llvm')
    target_headers = {}
    for folder in TARGET_FOLDERS:
        for h in headers(root, folder):
            target_headers.setdefault(h, folder)
    for path in sources(root, shared):
        rel = os.path.relpath(path, root)
        text = strip_comments(open(path, encoding='utf-8', errors='replace').read())
        for ln, line in enumerate(text.split('\n'), 1):
            inc = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
            if inc and os.path.basename(inc.group(1)) in target_headers:
                bad.append('%s:%d: shared emission includes %s of %s/: %s' % (
                    rel, ln, inc.group(1), target_headers[os.path.basename(inc.group(1))], line.strip()))
                continue
            m = TARGET_WORDS.search(line)
            if m:
                bad.append('%s:%d: shared emission names a target (%s): %s' % (rel, ln, m.group(0), line.strip()))
    for b in bad:
        print(b)
    print('check-layers: %d violation(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
