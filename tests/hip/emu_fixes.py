# emu_fixes.py — run by the HIP test stand-in (standin.c) after it imports tinygrad's emulator, with `emu` bound
# to test.mockgpu.amd.emu: the workarounds for the emulator's known errors (tests/hip/README.md, "What the
# stand-in does beyond HIP"). Test-only, never installed; the emulator's own code is not copied here: these are
# runners of our own written from the ISA's definitions, and wrappers around emulator functions.
import contextlib
# our kernels ask for IEEE denormals: no DAZ/FTZ around execution (the emulator's default is RDNA's)
emu._MXCSRContext = contextlib.nullcontext
# program-counter instructions: s_getpc_b64 and s_swappc_b64 fail to compile on the emulator ("unknown
# variable: PC"), and s_setpc_b64 compiles to a no-op (emu.py's compile_sop_pcode/scalar_stores drop the
# assignment to PC, so a function's return falls through into the next function). All three (calls,
# returns, PC-relative globals) get a runner of ours that reads and writes the wave's SGPR file (the PC is
# SGPR 256/257 there); everything else goes to the emulator unchanged. On CDNA, FLAT-segment instructions
# get their SADDR field set to 0x7f ("off") in the loaded code object before the emulator compiles them:
# the ISA ignores SADDR for the FLAT segment and LLVM encodes it as 0, but emu.py's _compile_mem_op adds
# s[saddr:saddr+1] to the address whenever the field is below 124 (make_addr), so a generic-pointer access on
# gfx950 went to s[0:1] + the pointer's low half (SIGSEGV in the software texture sampler). In memory, not
# in a copy: the emulator's runners read an instruction's fields from memory at the PC when they run
# (emu.py inst_word); patching only the bytes handed to its compiler (as an earlier version did) changed nothing.
# The other workarounds follow, each with its reason.
import ctypes, types
# The wave's register files as the runners below see them: globals [0, 1] = the SGPR and VGPR files (VGPR r of
# lane l at r * wave size + l), EXEC 64 bits wide on wave64.
def _p2n_wave(sgpr, vgpr, ws):
  r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)
  v = (ctypes.c_uint32 * (256 * ws)).from_address(vgpr.value)
  return r, v, (r[emu.EXEC_LO.offset] | (r[emu.EXEC_LO.offset + 1] << 32) if ws == 64 else r[emu.EXEC_LO.offset])
# a source operand o of lane l: a VGPR (>= 256), the literal (255), an integer inline constant or an SGPR
def _p2n_src(r, v, ws, o, l, lit=0):
  if o >= 256: return v[(o - 256) * ws + l]
  if o == 255: return lit
  if o >= 193: return (192 - o) & 0xffffffff
  if o >= 128: return o - 128
  return r[o]
_p2n_orig_decode = emu._decode_at
def _p2n_decode_at(pc, arch):
  try: inst = emu.decode_inst(bytes((ctypes.c_char * 16).from_address(pc).raw), arch)
  except Exception: return _p2n_orig_decode(pc, arch)
  name = getattr(getattr(inst, 'op', None), 'name', '')
  if arch == 'cdna' and type(inst).__name__ == 'FLAT' and (inst.to_bytes()[6] & 0x7f) != 0x7f:
    ctypes.c_uint8.from_address(pc + 6).value |= 0x7f
    return _p2n_orig_decode(pc, arch)
  if name == 'DS_BPERMUTE_B32': return _p2n_bpermute(inst, pc, arch), inst
  if type(inst).__name__ in ('SCRATCH', 'VSCRATCH'): return _p2n_scratch(inst, pc, arch, name), inst
  if name in ('S_SENDMSG_RTN_B64', 'S_SENDMSG_RTN_B32') and inst.ssrc0.offset == 128 + 3:   # inline constant 3
    return _p2n_realtime(inst, pc, name), inst
  if name in ('S_MEMTIME', 'S_MEMREALTIME'): return _p2n_realtime(inst, pc, name), inst
  if name == 'S_SET_GPR_IDX_ON':
    r = _p2n_gpr_idx(inst, pc, arch)
    if r: return r, inst
  if name.split('_ATOMIC_')[-1] in _p2n_rmw64: return _p2n_atomic64(inst, pc, arch, name), inst
  if name in ('V_ADD_NC_I16', 'V_SUB_NC_I16', 'V_ADD_I16', 'V_SUB_I16') and int(getattr(inst, 'clmp', 0) or 0):
    r = _p2n_i16sat(inst, pc, arch, name)
    if r: return r, inst
  if type(inst).__name__ == 'VOP2_SDWA' and name.replace('_E32', '') in _p2n_co:
    r = _p2n_valu_runner(inst, pc, arch, name.replace('_E32', ''))
    if r: return r, inst
  if name.replace('_E32', '').replace('_E64', '') in _p2n_valu:
    r = _p2n_valu_runner(inst, pc, arch, name.replace('_E32', '').replace('_E64', ''))
    if r: return r, inst
  if name in ('V_MOVRELD_B32_E32', 'V_MOVRELS_B32_E32', 'V_MOVRELD_B32_E64', 'V_MOVRELS_B32_E64'):
    r = _p2n_movrel(inst, pc, arch, name)
    if r: return r, inst
  if name not in ('S_GETPC_B64', 'S_SETPC_B64', 'S_SWAPPC_B64'): return _p2n_orig_decode(pc, arch)
  d, s, nxt = inst.sdst.offset, inst.ssrc0.offset, pc + inst.size()
  lo, hi = emu.PC_LO_IDX, emu.PC_HI_IDX
  def fxn(sgpr, *rest):
    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)
    tgt = r[s] | (r[s + 1] << 32)
    if name != 'S_SETPC_B64': r[d], r[d + 1] = nxt & 0xffffffff, nxt >> 32
    n = nxt if name == 'S_GETPC_B64' else tgt
    r[lo], r[hi] = n & 0xffffffff, n >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0]))
  return (prg, types.SimpleNamespace(fxn=fxn)), inst
# ds_bpermute_b32: the emulator's runner reads VGPR[src_lane] for every lane, inactive lanes too, and with
# the garbage an inactive lane's address register holds it reads outside the register file (SIGSEGV;
# on wave64 a 32-thread warp leaves half the lanes inactive). This runner follows the ISA's pseudocode:
# src_lane = (ADDR + offset) / 4 mod wave size; an inactive source lane gives 0; only active lanes are
# written. globals [0, 1] = the wave's SGPR and VGPR files (VGPR r of lane l at r * wave size + l).
def _p2n_bpermute(inst, pc, arch):
  ws = 64 if arch == 'cdna' else 32
  a, d0, vd = inst.addr.offset - 256, inst.data0.offset - 256, inst.vdst.offset - 256
  off, nxt = int(inst.offset0) | (int(inst.offset1) << 8), pc + inst.size()
  lo, hi = emu.PC_LO_IDX, emu.PC_HI_IDX
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    res = {}
    for i in range(ws):
      if ex >> i & 1:
        sl = ((v[a * ws + i] + off) & 0xffffffff) // 4 % ws
        res[i] = v[d0 * ws + sl] if ex >> sl & 1 else 0
    for i, x in res.items(): v[vd * ws + i] = x
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# 64-bit compare-and-swap and min/max (FLAT/GLOBAL, CDNA _X2 and RDNA _B64/_I64/_U64 names): the
# emulator leaves memory unchanged for cmpswap and compares only the low halves for max (atom.max.s64 and
# .u64 both gave the same low-half maximum). This runner does them lane by lane in lane order (a wave's
# atomics to one address are serialised on the GPU too); with GLC/SC0 the old value goes to VDST.
# cmpswap DATA = {src lo, src hi, cmp lo, cmp hi}; GLOBAL with an SADDR below 124 = SGPR pair + unsigned
# 32-bit VADDR, else the 64-bit VADDR; the 13-bit signed offset is added. globals [0, 1, 2] = SGPRs,
# VGPRs and the whole address space (device pointers are host pointers here).
_p2n_s64 = lambda x: x - (1 << 64) if x >> 63 else x
_p2n_rmw64 = {'CMPSWAP_X2': None, 'CMPSWAP_B64': None,
  'SMAX_X2': lambda o, x: x if _p2n_s64(x) > _p2n_s64(o) else o, 'MAX_I64': lambda o, x: x if _p2n_s64(x) > _p2n_s64(o) else o,
  'SMIN_X2': lambda o, x: x if _p2n_s64(x) < _p2n_s64(o) else o, 'MIN_I64': lambda o, x: x if _p2n_s64(x) < _p2n_s64(o) else o,
  'UMAX_X2': max, 'MAX_U64': max, 'UMIN_X2': min, 'MIN_U64': min}
def _p2n_atomic64(inst, pc, arch, name):
  op = _p2n_rmw64[name.split('_ATOMIC_')[-1]]
  ws = 64 if arch == 'cdna' else 32
  a, d, vd = inst.addr.offset - 256, inst.data.offset - 256, inst.vdst.offset - 256
  sa = inst.saddr.offset if hasattr(inst.saddr, 'offset') else int(inst.saddr)
  use_sa = type(inst).__name__ == 'GLOBAL' and sa < 124
  fo = type(inst).offset
  w = fo.hi - fo.lo + 1
  off = int(inst.offset)
  off = off - (1 << w) if off >> (w - 1) & 1 else off
  rtn = bool(getattr(inst, 'sc0', 0) if arch == 'cdna' else getattr(inst, 'glc', 0))
  lo, hi, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, pc + inst.size()
  def fxn(sgpr, vgpr, vmem, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    V = lambda reg, l: v[(reg) * ws + l]
    for l in range(ws):
      if not ex >> l & 1: continue
      base = (r[sa] | r[sa + 1] << 32) + V(a, l) if use_sa else V(a, l) | V(a + 1, l) << 32
      m = ctypes.c_uint64.from_address((base + off) & 0xffffffffffffffff)
      old, src = m.value, V(d, l) | V(d + 1, l) << 32
      if op: m.value = op(old, src)
      elif old == V(d + 2, l) | V(d + 3, l) << 32: m.value = src
      if rtn: v[vd * ws + l], v[(vd + 1) * ws + l] = old & 0xffffffff, old >> 32
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1, 2]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# v_movreld_b32 (VGPR[vdst + M0] = src0) and v_movrels_b32 (VGPR[vdst] = VGPR[src0 + M0]), RDNA: the
# emulator cannot compile them ("unknown variable: DST" / "SRC0"); LLVM uses them for a VGPR array
# indexed at run time (our sparse-mma metadata selection). src0 from a VGPR, an SGPR or an integer
# inline constant; anything else is left to the emulator. M0 is SGPR 125 on RDNA.
def _p2n_movrel(inst, pc, arch, name):
  if arch == 'cdna': return None
  ws, m0, s0, vd = 32, 125, inst.src0.offset, inst.vdst.offset - 256
  if 'MOVRELS' in name and s0 < 256: return None
  if not (s0 >= 256 or s0 < 128 or 128 <= s0 <= 208): return None
  lo, hi, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, pc + inst.size()
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    k = r[m0]
    for l in range(ws):
      if not ex >> l & 1: continue
      if 'MOVRELS' in name: v[vd * ws + l] = v[(s0 - 256 + k) * ws + l]
      else:
        x = v[(s0 - 256) * ws + l] if s0 >= 256 else r[s0] if s0 < 128 else (s0 - 128 if s0 <= 192 else (192 - s0) & 0xffffffff)
        v[(vd + k) * ws + l] = x
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# 24-bit multiplies and v_rndne_f32, which the emulator computes wrongly (its pseudocode reader has no
# 24-bit types: S0.i24 / S0.u24 are read as whole 32-bit values, so the truncation is lost and the i24
# forms multiply as unsigned; v_rndne_f32 is floor(x + 0.5), which rounds halves up and loses -0). The
# ISA's definitions, lane by lane: 24-bit sources sign/zero-extended, low or high 32 bits of the product,
# mad adds S2; rndne = round half to even, -0 and |x| < 0.5 negative give -0, NaN quietened. Sources
# from VGPRs, SGPRs, integer inline constants or the literal; an instruction with other sources, or with
# clamp/omod/neg/abs, is left to the emulator.
import struct
_p2n_s24 = lambda x: ((x & 0xffffff) ^ 0x800000) - 0x800000
def _p2n_rndne_f32(a, *_):
  x = struct.unpack('<f', struct.pack('<I', a))[0]
  if x != x: return a | 0x400000
  if abs(x) >= 8388608.0: return a
  return struct.unpack('<I', struct.pack('<f', __import__('math').copysign(float(round(x)), x)))[0]
_p2n_valu = {
  'V_MUL_I32_I24': lambda a, b, c: _p2n_s24(a) * _p2n_s24(b),
  'V_MUL_HI_I32_I24': lambda a, b, c: (_p2n_s24(a) * _p2n_s24(b)) >> 32,
  'V_MUL_U32_U24': lambda a, b, c: (a & 0xffffff) * (b & 0xffffff),
  'V_MUL_HI_U32_U24': lambda a, b, c: ((a & 0xffffff) * (b & 0xffffff)) >> 32,
  'V_MAD_I32_I24': lambda a, b, c: _p2n_s24(a) * _p2n_s24(b) + c,
  'V_MAD_U32_U24': lambda a, b, c: (a & 0xffffff) * (b & 0xffffff) + c,
  'V_RNDNE_F32': _p2n_rndne_f32,
  'V_ADD_I32': lambda a, b, c: _p2n_s32(a) + _p2n_s32(b), 'V_SUB_I32': lambda a, b, c: _p2n_s32(a) - _p2n_s32(b)}
# CDNA's v_add_i32/v_sub_i32 with clamp saturate to [-2^31, 2^31 - 1]; the emulator clamps only the
# _NC_/_MAD_ names, so these wrapped. Taken here only with clamp (without it the emulator is right).
_p2n_s32 = lambda x: x - (1 << 32) if x >> 31 & 1 else x
_p2n_sat = {'V_ADD_I32', 'V_SUB_I32'}
# v_cvt_i32_f32 / v_cvt_i32_f64 saturate on the GPU (NaN gives 0); the emulator's f32_to_i32 / f64_to_i32
# (pcode.py) truncate and cast, which gives 0x80000000 for every out-of-range value
def _p2n_cvt_i32(x):
  if x != x: return 0
  return max(min(int(x), 0x7fffffff), -0x80000000) if abs(x) != float('inf') else (0x7fffffff if x > 0 else -0x80000000)
_p2n_valu['V_CVT_I32_F32'] = lambda a, b, c: _p2n_cvt_i32(struct.unpack('<f', struct.pack('<I', a))[0])
_p2n_valu['V_CVT_I32_F64'] = lambda a, b, c: _p2n_cvt_i32(struct.unpack('<d', struct.pack('<Q', a))[0])
# v_rndne_f64: floor(x + 0.5) on the emulator as for f32 (-0 lost, halves up, and 2^52 + 1 rounded by the add)
def _p2n_rndne_f64(a, *_):
  x = struct.unpack('<d', struct.pack('<Q', a))[0]
  if x != x: return a | 1 << 51
  if abs(x) >= 4503599627370496.0: return a
  return struct.unpack('<Q', struct.pack('<d', __import__('math').copysign(float(round(x)), x)))[0]
_p2n_valu['V_RNDNE_F64'] = _p2n_rndne_f64
_p2n_wide = {'V_CVT_I32_F64', 'V_RNDNE_F64'}   # 64-bit sources (register pairs)
_p2n_wide_out = {'V_RNDNE_F64'}                 # 64-bit results
# SDWA forms with a carry-out to VCC: the emulator's lane loop rewrites the whole mask for each lane from
# the old mask, so VCC kept only the last lane of each 32-bit half (checked: 64 lanes without borrow left
# VCC = 0x7fffffff7fffffff). Here: every active lane's carry/borrow, inactive lanes' bits 0.
_p2n_co = {'V_ADD_CO_U32': lambda a, b: (a + b, (a + b) >> 32),
  'V_SUB_CO_U32': lambda a, b: (a - b, int(b > a)), 'V_SUBREV_CO_U32': lambda a, b: (b - a, int(a > b))}
def _p2n_valu_runner(inst, pc, arch, base):
  ws, cls, co = (64 if arch == 'cdna' else 32), type(inst).__name__, base in _p2n_co
  op = _p2n_co[base] if co else _p2n_valu[base]
  F = lambda k: int(getattr(inst, k, 0) or 0)
  sat = base in _p2n_sat
  if sat != bool(F('clmp')): return None
  if any(F(k) for k in ('omod', 'neg', 'abs', 'opsel', 'src0_neg', 'src0_abs', 'src1_neg', 'src1_abs')): return None
  if ('SDWA' in cls and cls != 'VOP2_SDWA') or 'DPP' in cls: return None
  sel = None
  if cls == 'VOP2_SDWA':
# SDWA (gfx9): sources from VGPRs (an SGPR where S0/S1 is set), each narrowed to the byte/word its
# SEL names (6 = the dword), sign-extended where SEXT is set; the result goes to DST_SEL's field,
# the rest of the register zeroed (UNUSED_PAD), sign-filled (UNUSED_SEXT) or kept (UNUSED_PRESERVE)
    n = lambda f: f.offset - 256 if hasattr(f, 'offset') else int(f)
    srcs = [n(inst.vsrc0) + (0 if F('s0') else 256), n(inst.vsrc1) + (0 if F('s1') else 256)]
    sel = ((F('src0_sel'), F('src0_sext')), (F('src1_sel'), F('src1_sext')), F('dst_sel'), F('dst_unused'))
  else:
    srcs = [getattr(inst, k) for k in ('src0', 'vsrc1', 'src1', 'src2') if getattr(inst, k, None) is not None]
    srcs = [x.offset if hasattr(x, 'offset') else int(x) for x in srcs]
  if any(not (o >= 256 or o < 128 or 128 <= o <= 208 or o == 255) for o in srcs): return None
  wide, wide_out = base in _p2n_wide, base in _p2n_wide_out
  if wide and any(128 <= o < 256 for o in srcs): return None
  lit = int(getattr(inst, 'literal', 0) or 0)
  vd, nxt = inst.vdst.offset - 256, pc + inst.size()
  lo, hi, vcc = emu.PC_LO_IDX, emu.PC_HI_IDX, emu.VCC_LO.offset
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    rd = lambda o, l: _p2n_src(r, v, ws, o, l, lit)
    def narrow(x, s):
      if s[0] >= 6: return x
      sh, w = (8 * s[0], 8) if s[0] < 4 else (16 * (s[0] - 4), 16)
      x = x >> sh & ((1 << w) - 1)
      return (x - (1 << w)) & 0xffffffff if s[1] and x >> (w - 1) else x
    def place(x, old):
      if sel[2] >= 6: return x
      sh, w = (8 * sel[2], 8) if sel[2] < 4 else (16 * (sel[2] - 4), 16)
      m = ((1 << w) - 1) << sh
      y = (x << sh) & m
      if sel[3] == 2: return (old & ~m & 0xffffffff) | y
      if sel[3] == 1 and x >> (w - 1) & 1: return (y | (0xffffffff << (sh + w))) & 0xffffffff
      return y
    res, carry = {}, 0
    for l in range(ws):
      if not ex >> l & 1: continue
      a = [rd(o, l) | rd(o + 1, l) << 32 if wide else rd(o, l) for o in srcs]
      if sel: a = [narrow(a[0], sel[0]), narrow(a[1], sel[1])]
      if co:
        x, c = op(*a)
        carry |= (c & 1) << l
      else: x = op(*a, *([0] * (3 - len(a))))
      if wide_out:
        res[l] = x & 0xffffffffffffffff
        continue
      x = (min(max(x, -0x80000000), 0x7fffffff) if sat else x) & 0xffffffff
      res[l] = place(x, v[vd * ws + l]) if sel else x
    for l, x in res.items():
      v[vd * ws + l] = x & 0xffffffff
      if wide_out: v[(vd + 1) * ws + l] = x >> 32
    if co:
      r[vcc] = carry & 0xffffffff
      if ws == 64: r[vcc + 1] = carry >> 32
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# CDNA names the "return the pre-op value" bit of an atomic SC0, RDNA GLC; the emulator asks only for
# 'glc' (emu.py _compile_mem_op), so no atomic returned its old value on gfx950: atom.add tickets were
# all 0 and every compare-and-swap loop spun forever. Answer 'glc' with SC0 where an instruction has no
# GLC field.
_p2n_orig_iattr = emu._iattr
def _p2n_iattr(inst, name, default=0):
  if name == 'glc' and not hasattr(inst, 'glc') and hasattr(inst, 'sc0'): name = 'sc0'
  return _p2n_orig_iattr(inst, name, default)
emu._iattr = _p2n_iattr
# DS loads: the emulator reads LDS at every lane's address, inactive lanes too (_compile_mem_op gives DS
# sources no '_active', so pcode.py's _handle_mem_load loads ungated), and an inactive lane's stale
# address register can point past the LDS buffer (SIGSEGV) — a block's last thread reading s[4092]
# alone, a spinning half-wave. Give DS sources the lane's EXEC bit, as FLAT/GLOBAL ones have: the
# handler records the instruction's context, parse_pcode adds '_active' from it.
_p2n_mem_ctx = [None, None]
_p2n_orig_mem_op = emu._compile_mem_op
def _p2n_mem_op(inst, ctx):
  _p2n_mem_ctx[:] = [ctx, inst]
  try: return _p2n_orig_mem_op(inst, ctx)
  finally: _p2n_mem_ctx[:] = [None, None]
for _k, _h in list(emu._INST_HANDLERS.items()):
  if _h is _p2n_orig_mem_op: emu._INST_HANDLERS[_k] = _p2n_mem_op
_p2n_orig_parse = emu.parse_pcode
def _p2n_parse(pcode, srcs=None):
  c = _p2n_mem_ctx[0]
  if c is not None and srcs and '_lds' in srcs and '_active' not in srcs and 'laneId' in srcs:
    srcs = dict(srcs, _active=emu._lane_active(c.rexec(), srcs['laneId']))
# DS d16 loads write one half of VDST and keep the other (ds_load_u16_d16 / _d16_hi and the byte forms);
# the emulator wrote the loaded half zero-extended into the whole register (for _hi into the low half):
# merge it with the register's old value here.
  pv, assigns = _p2n_orig_parse(pcode, srcs)
  inst = _p2n_mem_ctx[1]
  if c is not None and srcs and '_lds' in srcs and 'D16' in getattr(getattr(inst, 'op', None), 'name', ''):
    old = c.rvgpr_dyn(c.inst_field(type(inst).vdst), srcs['laneId'])
    out = []
    for d, v in assigns:
      if d.startswith('RETURN_DATA[15') or d.startswith('RETURN_DATA[31'):
        v16 = v.cast(emu.dtypes.uint32) & emu._c(0xffff)
        v = (old & emu._c(0xffff0000)) | v16 if d.startswith('RETURN_DATA[15') else (old & emu._c(0xffff)) | (v16 << emu._c(16))
        d = 'RETURN_DATA[31:0]'
      out.append((d, v))
    assigns = out
  return pv, assigns
emu.parse_pcode = _p2n_parse
# 16-bit signed add/sub with clamp, RDNA v_add_nc_i16 / v_sub_nc_i16 and CDNA v_add_i16 / v_sub_i16: the emulator
# skips the clamp of 16-bit signed ops (emu.py _int_clamp), so saturating 16-bit adds wrapped. OPSEL bit 0/1 picks
# the high half of src0/src1, bit 3 the half of VDST written (the other half is kept, as for a true16 register
# half; our CDNA code packs the halves itself afterwards).
def _p2n_i16sat(inst, pc, arch, name):
  ws, os_ = (64 if arch == 'cdna' else 32), int(getattr(inst, 'opsel', 0) or 0)
  if any(int(getattr(inst, k, 0) or 0) for k in ('omod', 'neg', 'abs')): return None
  s0, s1 = inst.src0.offset, inst.src1.offset
  if any(not (o >= 256 or o < 128 or 128 <= o <= 208) for o in (s0, s1)): return None
  vd, nxt = inst.vdst.offset - 256, pc + inst.size()
  lo, hi = emu.PC_LO_IDX, emu.PC_HI_IDX
  x16 = lambda x, h: (lambda y: y - 0x10000 if y & 0x8000 else y)(x >> 16 & 0xffff if h else x & 0xffff)
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    rd = lambda o, l: _p2n_src(r, v, ws, o, l)
    for l in range(ws):
      if not ex >> l & 1: continue
      a, b = x16(rd(s0, l), os_ & 1), x16(rd(s1, l), os_ >> 1 & 1)
      x = min(max(a + b if 'ADD' in name else a - b, -0x8000), 0x7fff) & 0xffff
      old = v[vd * ws + l]
      v[vd * ws + l] = (old & 0xffff) | x << 16 if os_ >> 3 & 1 else (old & 0xffff0000) | x
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# Private memory per wave. The emulator gives all waves of a workgroup one scratch buffer indexed by the lane
# within the wave (run_asm's scratch_buf, make_addr: lane * SCRATCH_STRIDE), so in a block of several waves
# wave 1's private array overwrote wave 0's; the waves run one after the other between barriers, so private data
# live across a barrier came back as the other wave's (bar/regions_local_array). Every SCRATCH instruction runs
# here on a buffer of the wave's own, found by the address of the wave's SGPR file (a wave state of its own for
# each wave of each workgroup), with the emulator's layout inside it: lane l at l * stride; address = (VADDR if
# SVE) + (the SADDR SGPR if below 124) + the 13-bit signed offset. Sizes, sign/zero extension and the d16 forms
# (one half of VDST written or stored, the other kept) from the instruction's name; a form not known here stops
# the grid with its name (the emulator's own scratch would not see this memory).
_p2n_scratch_bufs = {}
_p2n_sizes = {'U8': (1, 0), 'I8': (1, 1), 'UBYTE': (1, 0), 'SBYTE': (1, 1), 'B8': (1, 0), 'BYTE': (1, 0),
              'U16': (2, 0), 'I16': (2, 1), 'USHORT': (2, 0), 'SSHORT': (2, 1), 'B16': (2, 0), 'SHORT': (2, 0),
              'B32': (4, 0), 'DWORD': (4, 0), 'B64': (8, 0), 'DWORDX2': (8, 0), 'B96': (12, 0), 'DWORDX3': (12, 0),
              'B128': (16, 0), 'DWORDX4': (16, 0)}
def _p2n_scratch(inst, pc, arch, name):
  parts = name.split('_')[2:]                     # SCRATCH_LOAD_D16_HI_B16 -> ['D16', 'HI', 'B16']
  store, d16, hi = name.startswith('SCRATCH_STORE'), 'D16' in parts, 'HI' in parts
  size = [_p2n_sizes[x] for x in parts if x in _p2n_sizes]
  if len(size) != 1 or int(getattr(inst, 'lds', 0) or 0):
    raise RuntimeError(f'hip stand-in: scratch form {name} not handled (emu_fixes.py _p2n_scratch)')
  nbytes, signed = size[0]
  ws = 64 if arch == 'cdna' else 32
  reg = lambda f: f.offset - 256 if hasattr(f, 'offset') else int(f)
  a, d, vd = reg(inst.addr), reg(inst.data), reg(inst.vdst)
  sa = inst.saddr.offset if hasattr(inst.saddr, 'offset') else int(inst.saddr)
  sve = int(getattr(inst, 'sve', 0) or 0)
  fo = type(inst).offset
  w = fo.hi - fo.lo + 1
  off = int(inst.offset)
  off = off - (1 << w) if off >> (w - 1) & 1 else off
  lo, hi_, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, pc + inst.size()
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    stride = r[emu.SCRATCH_STRIDE_IDX]
    buf = _p2n_scratch_bufs.get(sgpr.value)
    if buf is None or len(buf) < stride * ws:
      if len(_p2n_scratch_bufs) > 256: _p2n_scratch_bufs.clear()
      buf = _p2n_scratch_bufs[sgpr.value] = bytearray(stride * ws)
    for l in range(ws):
      if not ex >> l & 1: continue
      addr = l * stride + (v[a * ws + l] if sve else 0) + (r[sa] if sa < 124 else 0) + off
      if addr < 0 or addr + nbytes > len(buf): raise RuntimeError(f'hip stand-in: {name} outside the private segment')
      if store:
        if d16 and hi: val = v[d * ws + l] >> 16
        else: val = sum(v[(d + i) * ws + l] << (32 * i) for i in range((nbytes + 3) // 4))
        buf[addr:addr + nbytes] = (val & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, 'little')
        continue
      val = int.from_bytes(buf[addr:addr + nbytes], 'little')
      if nbytes < 4 and signed and val >> (8 * nbytes - 1) & 1: val -= 1 << (8 * nbytes)
      if d16:
        old = v[vd * ws + l]
        h = val & 0xffff
        v[vd * ws + l] = (old & 0xffff) | h << 16 if hi else (old & 0xffff0000) | h
      elif nbytes <= 4: v[vd * ws + l] = val & 0xffffffff
      else:
        for i in range(nbytes // 4): v[(vd + i) * ws + l] = val >> (32 * i) & 0xffffffff
    r[lo], r[hi_] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME (message 131, field value 3; %globaltimer and clock64 on RDNA3) and CDNA's
# s_memtime / s_memrealtime: the emulator has no runner for them (KeyError / "unexpected SMEM op"). A constant
# 100 MHz counter: the host's monotonic clock in 10 ns units (the shader clock of s_memtime too: only its
# monotonicity is observable).
import time
def _p2n_realtime(inst, pc, name):
  d, nxt = (inst.sdata if name.startswith('S_MEM') else inst.sdst).offset, pc + inst.size()
  lo, hi = emu.PC_LO_IDX, emu.PC_HI_IDX
  def fxn(sgpr, *rest):
    r = (ctypes.c_uint32 * emu.SGPR_COUNT).from_address(sgpr.value)
    t = time.monotonic_ns() // 10
    r[d] = t & 0xffffffff
    if not name.endswith('B32'): r[d + 1] = t >> 32 & 0xffffffff
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0]))
  return (prg, types.SimpleNamespace(fxn=fxn))
# 16-bit loads from an address that is 1 mod 4 (an unaligned u16 between two bytes, as LLVM assembles an unaligned
# 32-bit load: u8, u16 at +1, i8 at +3): pcode.py's _handle_mem_load picks the halfword of the aligned dword by bit 1
# of the address and ignores bit 0, so it returned bytes 0-1 of the dword instead of 1-2 (and bytes 2-3 for an
# address 3 mod 4). GPUs in ROCm's unaligned mode load the two bytes at the address. Here such a load is the low 16
# bits of the emulator's own unaligned 32-bit load at the same address (which combines the two dwords).
import test.mockgpu.amd.pcode as _p2n_pcode
_p2n_orig_mem_load = _p2n_pcode.Parser._handle_mem_load
def _p2n_mem_load(self, addr, dt):
  mem = self.vars.get('_vmem') if '_vmem' in self.vars else self.vars.get('_lds')
  if dt in (emu.dtypes.uint16, emu.dtypes.int16) and mem is not None and mem.dtype != emu.dtypes.uint8:
    v32 = _p2n_orig_mem_load(self, addr, emu.dtypes.uint32)
    return _p2n_pcode._cast_to(v32 & emu._c(0xffff), dt)
  return _p2n_orig_mem_load(self, addr, dt)
_p2n_pcode.Parser._handle_mem_load = _p2n_mem_load
# gfx9 VGPR index mode: s_set_gpr_idx_on S, gpr_idx(SRC0 | DST); v_mov_b32 vD, vS; s_set_gpr_idx_off is LLVM's
# run-time-indexed VGPR read / write on CDNA (our sparse-mma metadata selection). The emulator cannot compile
# s_set_gpr_idx_on ("unknown variable: SRC1") and has no index mode. This runner takes the three instructions
# together (the only shape LLVM emits for them): per active lane vD = v[S + idx] (SRC0) or v[D + idx] = vS (DST),
# idx = S[7:0]; M0 as the hardware leaves it (index in M0[7:0], mode bits cleared by s_set_gpr_idx_off). Any other
# shape is left to the emulator (which fails on it, naming the instruction).
def _p2n_gpr_idx(inst, pc, arch):
  mv = emu.decode_inst(bytes((ctypes.c_char * 16).from_address(pc + inst.size()).raw), arch)
  off_pc = pc + inst.size() + mv.size()
  off = emu.decode_inst(bytes((ctypes.c_char * 16).from_address(off_pc).raw), arch)
  if getattr(mv.op, 'name', '') != 'V_MOV_B32_E32' or getattr(off.op, 'name', '') != 'S_SET_GPR_IDX_OFF': return None
  mode, sreg = int(inst.ssrc1.offset if hasattr(inst.ssrc1, 'offset') else inst.ssrc1), inst.ssrc0.offset
  d, s_ = mv.vdst.offset - 256, mv.src0.offset
  if mode not in (1, 8) or s_ < 256: return None
  s_ -= 256
  ws, m0 = (64 if arch == 'cdna' else 32), 124
  lo, hi, nxt = emu.PC_LO_IDX, emu.PC_HI_IDX, off_pc + off.size()
  def fxn(sgpr, vgpr, *rest):
    r, v, ex = _p2n_wave(sgpr, vgpr, ws)
    idx = r[sreg] & 0xff
    for l in range(ws):
      if not ex >> l & 1: continue
      if mode == 1: v[d * ws + l] = v[(s_ + idx) * ws + l]
      else: v[(d + idx) * ws + l] = v[s_ * ws + l]
    r[m0] = (r[m0] & ~0xf0ff & 0xffffffff) | idx
    r[lo], r[hi] = nxt & 0xffffffff, nxt >> 32
  prg = types.SimpleNamespace(arg=types.SimpleNamespace(globals=[0, 1]))
  return (prg, types.SimpleNamespace(fxn=fxn))
emu._decode_at = _p2n_decode_at
# the emulator keeps inline constants in the SGPR file (slot 240 + k) and HW_REGISTERS at slots
# SGPR_COUNT-16.. (= 244..259): _init_wave's HW_ID (HW_REGISTERS[4]) lands on slot 248, the inline
# constant 1/(2*pi), so v_mul_f32 v0, 0.15915494, v1 multiplies by the wave's index (0 for wave 0).
# LLVM uses that constant for every sin/cos range reduction. Restore it: our code objects never read
# HW_ID (no s_getreg_b32).
_p2n_orig_init_wave = emu._init_wave
def _p2n_init_wave(*a, **k):
  st = _p2n_orig_init_wave(*a, **k)
  st._write_sgpr(248, emu.F32_INLINE[248])
  return st
emu._init_wave = _p2n_init_wave
