#!/usr/bin/env python3
"""help2man.py TXT NAME VERSION OUT.h OUT.1 — one help text, two outputs.

TXT is exactly what `NAME --help` prints, after an optional header of `@name: ...` lines (not printed):
  @summary: one line for the man page's NAME section
  @see-also: comma-separated pages
OUT.h defines P2N_HELP_TEXT, the C string literal for --help; OUT.1 is the troff man page: the `usage:`
line becomes SYNOPSIS, a line ending in ':' at column 0 starts a section, `  -x, --opt ARG   text`
lines become tagged paragraphs (continuation lines indented past the option column are joined)."""
import os, re, sys

src, name, version, out_h, out_man = sys.argv[1:6]
meta, body = {}, []
for line in open(src, encoding="utf-8").read().splitlines():
    m = re.match(r"^@([a-z-]+):\s*(.*)$", line)
    if m and not body:
        meta[m.group(1)] = m.group(2)
    else:
        body.append(line)

def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '\\n"'

def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    open(path, "w", encoding="utf-8").write(text)

write(out_h, "/* Generated from %s by packaging/help2man.py: edit that file. */\n#define P2N_HELP_TEXT \\\n%s\n"
      % (os.path.basename(src), " \\\n".join("    " + c_str(l) for l in body)))

def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return ("\\&" + s) if s.startswith((".", "'")) else s

man = ['.\\" Generated from %s by packaging/help2man.py: edit that file.' % os.path.basename(src),
       '.TH %s 1 "" "ptx2native %s" "User Commands"' % (name.upper(), version),
       ".SH NAME", "%s \\- %s" % (esc(name), esc(meta.get("summary", name)))]
i, section = 0, None
opt_re = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")
while i < len(body):
    line = body[i]
    if line.startswith("usage:"):
        man += [".SH SYNOPSIS", ".nf", esc(line[len("usage:"):].strip())]
        i += 1
        while i < len(body) and body[i].startswith("       "):
            man.append(esc(body[i].strip())); i += 1
        man += [".fi", ".SH DESCRIPTION"]
        continue
    if re.match(r"^[A-Za-z][A-Za-z ,]*:$", line):
        man.append(".SH " + esc(line[:-1].upper())); i += 1; continue
    if line.strip() == "":
        man.append(".PP"); i += 1; continue
    m = opt_re.match(line)
    if m and line.startswith("  ") and not line.startswith("   "):
        tag, text = m.group(1), [m.group(2)] if m.group(2) else []
        i += 1
        while i < len(body) and body[i].startswith("    ") and body[i].strip():
            text.append(body[i].strip()); i += 1
        man += [".TP", "\\fB" + esc(tag) + "\\fR", esc(" ".join(text))]
        continue
    if line.startswith("    "):  # an indented block: keep the lines
        man.append(".nf")
        while i < len(body) and body[i].startswith("    "):
            man.append(esc(body[i].strip())); i += 1
        man.append(".fi")
        continue
    man.append(esc(line.strip())); i += 1
if meta.get("see-also"):
    man += [".SH SEE ALSO", ", ".join("\\fB%s\\fR(1)" % esc(p.strip()) for p in meta["see-also"].split(","))]
write(out_man, "\n".join(man) + "\n")
