"""Cases over the CUDA C sources in src/ (compiled to ptx/cu/) and the hand-written PTX in ptx/hand/."""
import os
import subprocess
import struct

from gen_core import ROOT, raw_case, rand_f32, _rng

CU = {  # source -> arch
    "mem": "sm_80", "atom": "sm_80", "bar": "sm_80", "warp": "sm_80", "warp90": "sm_90", "sreg": "sm_80",
    "ctrl": "sm_80", "misc": "sm_80", "bar_regions": "sm_80", "prog": "sm_80", "prog90": "sm_90",
}


def compile_cu():
    os.makedirs(os.path.join(ROOT, "ptx/cu"), exist_ok=True)
    for name, arch in CU.items():
        subprocess.check_call(["/usr/local/cuda/bin/nvcc", "-ptx", f"-arch={arch}", "-o", f"ptx/cu/{name}.ptx",
                               f"src/{name}.cu"], cwd=ROOT)


def ints(n, lo, hi):
    return [str(_rng.randint(lo, hi)) for _ in range(n)]


def vals(ty, toks):
    from gen_core import wrap_values
    return f"values {ty} \\\n    " + wrap_values(toks)


def f16bits(x):
    return "0x%04x" % struct.unpack("<H", struct.pack("<e", x))[0]


def gen_mem():
    fam = "mem"
    P = "ptx/cu/mem.ptx"
    n = 256
    raw_case(fam, "vec_global", P, [dict(kernel="k_vec_global", grid=2, block=128,
             params=["ptr in4", "ptr in2", "ptr ind", "ptr out4", "ptr out2", "ptr outd", f"u32 {n}"])],
             [f"in4 {16 * n} prng 1 u32", f"in2 {8 * n} prng 2 f32 -100 100", f"ind {16 * n} prng 3 f64 -1e6 1e6",
              f"out4 {16 * n} zeros", f"out2 {8 * n} zeros", f"outd {16 * n} zeros"],
             ["out4", "out2", "outd"], "ld/st .v4.u32 .v2.f32 .v2.f64 in global memory")
    raw_case(fam, "subword_loads", P, [dict(kernel="k_subword", grid=1, block=256,
             params=["ptr s8", "ptr u8", "ptr s16", "ptr u16", "ptr out", "u32 256"])],
             ["s8 256 iota u8 0 1", "u8 256 iota u8 0 1", "s16 512 iota u16 0x7f00 0x101", "u16 512 iota u16 0x7f00 0x101",
              "out 4096 zeros"], ["out"], "sign/zero extension of 8/16-bit loads")
    raw_case(fam, "subword_stores", P, [dict(kernel="k_store_subword", grid=1, block=256,
             params=["ptr in", "ptr o8", "ptr o16", "u32 255"])],
             ["in 1024 prng 4 u32", "o8 256 fill ee", "o16 512 fill ee"], ["o8", "o16"],
             "8/16-bit stores leave neighbouring bytes alone (last element untouched)")
    raw_case(fam, "shared_vec", P, [dict(kernel="k_shared_vec", grid=2, block=256, params=["ptr in", "ptr out"])],
             ["in 8192 prng 5 f32 -8 8", "out 8192 zeros"], ["out"])
    raw_case(fam, "local_dynamic_index", P, [dict(kernel="k_local", grid=2, block=64,
             params=["ptr in", "ptr out", "u32 128"])], ["in 512 prng 6 s32 -1000 1000", "out 512 zeros"], ["out"])
    raw_case(fam, "const_bank", P, [dict(kernel="k_const", grid=1, block=128,
             params=["ptr idx", "ptr out", "ptr outd", "u32 128"])],
             ["idx 512 prng 7 u32", "out 512 zeros", "outd 32 zeros"], ["out", "outd"])
    raw_case(fam, "generic_addressing", P, [dict(kernel="k_generic", grid=1, block=128,
             params=["ptr g", "ptr out", "u32 128"])], ["g 512 iota u32 5000 3", "out 1536 zeros"], ["out", "g"],
             "generic pointers into shared/global/local; isspacep via __isShared etc.; cvta.to.shared")
    # struct Mixed { char c; double d; short s; int i[3]; float f; unsigned long long u; } -- 48 bytes
    mixed = struct.pack("<b7xdh2x3if4xQ", -5, 2.5, -300, 7, -8, 9, 0.75, 0xabcdef0123456789)
    assert len(mixed) == 48, len(mixed)
    raw_case(fam, "param_struct_by_value", P, [dict(kernel="k_param_struct", grid=1, block=64,
             params=["bytes " + mixed.hex(), "s32 -3", "ptr in", "ptr out"])],
             ["in 256 iota s32 -32 1", "out 512 zeros"], ["out"], "kernel parameter: 48-byte struct by value")
    raw_case(fam, "ldg_nc", P, [dict(kernel="k_ldg", grid=4, block=64, params=["ptr in", "ptr out", "u32 256"])],
             ["in 1024 prng 8 f32 -1 1", "out 1024 zeros"], ["out"])
    for sz in [1024, 4096, 65536]:
        raw_case(fam, f"dynamic_shared_{sz}", P, [dict(kernel="k_dyn_shared", grid=1, block=128, shared=sz,
                 params=["ptr in", "ptr out"])], ["in 1024 iota s32 0 7", "out 516 zeros"], ["out"],
                 "dynamic shared memory and %dynamic_smem_size" + (" (> 48 KiB opt-in)" if sz > 49152 else ""))
    raw_case(fam, "global_variable_two_launches", P,
             [dict(kernel="k_global_var_write", params=["ptr in"]),
              dict(kernel="k_global_var_read", params=["ptr out", "ptr outw"])],
             ["in 32 values s32 99 1 2 3 4 5 6 7", "out 4 zeros", "outw 64 zeros"], ["out", "outw"],
             "a .global variable keeps its value between launches of one module")
    raw_case(fam, "volatile_rmw", P, [dict(kernel="k_volatile_copy", block=64, params=["ptr a", "ptr out", "u32 64"])],
             ["a 256 iota s32 10 10", "out 256 zeros"], ["a", "out"])
    H = "ptx/hand/mem_hand.ptx"
    raw_case(fam, "state_spaces_vectors", H, [dict(kernel="k_spaces", block=16,
             params=["ptr out", "bytes 0100000002000000030000000400000f", "u32 0xfeedf00d"])],
             ["out 768 zeros"], ["out"], "param/const/shared/local/global with .v2/.v4 forms")
    raw_case(fam, "isspacep_cvta", H, [dict(kernel="k_isspacep", block=16, params=["ptr g", "ptr out"])],
             ["g 64 zeros", "out 128 zeros"], ["out"])


def gen_atom():
    fam = "atom"
    P = "ptx/cu/atom.ptx"
    init32 = "values s32 0 0 0x7fffffff 0x80000000 -1 0 0"
    raw_case(fam, "int32_all_ops_global", P, [dict(kernel="k_atom_int32", grid=64, block=256,
             params=["ptr acc", "ptr uacc", "ptr vals"])],
             [f"acc 28 {init32}", "uacc 20 values u32 0xffffffff 0 0 0 0", "vals 4096 prng 11 s32 -100000 100000"],
             ["acc", "uacc"], "add sub min max and or xor (s32) min max inc dec add (u32), 16384 threads")
    raw_case(fam, "int64_all_ops_global", P, [dict(kernel="k_atom_int64", grid=64, block=256,
             params=["ptr u", "ptr s", "ptr vals"])],
             ["u 48 values u64 0 0xffffffffffffffff 0 0xffffffffffffffff 0 0",
              "s 16 values s64 0x7fffffffffffffff 0x8000000000000000", "vals 8192 prng 12 u64"],
             ["u", "s"])
    raw_case(fam, "ticket_unique_old_values", P, [dict(kernel="k_atom_ticket", grid=32, block=256,
             params=["ptr ctr", "ptr seen"])], ["ctr 4 zeros", "seen 32768 zeros"], ["ctr", "seen"],
             "every value returned by atom.add is returned exactly once")
    raw_case(fam, "exch_32_64", P, [dict(kernel="k_atom_exch", grid=16, block=256,
             params=["ptr cell", "ptr cell64", "ptr count", "ptr count64"]),
             dict(kernel="k_atom_exch_final", params=["ptr cell", "ptr cell64", "ptr count", "ptr count64"])],
             ["cell 4 zeros", "cell64 8 zeros", "count 16400 zeros", "count64 16400 zeros"],
             ["cell", "count", "count64"], "old values of exch + final value form a permutation")
    raw_case(fam, "cas_loops_32_64", P, [dict(kernel="k_atom_cas", grid=32, block=256,
             params=["ptr c32", "ptr c64", "ptr cf"])], ["c32 4 values u32 7", "c64 8 values u64 0x100", "cf 4 zeros"],
             ["c32", "c64", "cf"])
    raw_case(fam, "float_add_f32_f64_f16x2_bf16x2", P, [dict(kernel="k_atom_float", grid=32, block=256,
             params=["ptr f", "ptr d", "ptr h2", "ptr b2", "ptr h"])],
             ["f 8 zeros", "d 16 zeros", "h2 4 zeros", "b2 4 zeros", "h 2 zeros"], ["f", "d", "h2", "b2", "h"],
             "all partial sums are exactly representable, so the order does not matter")
    raw_case(fam, "shared_all_ops", P, [dict(kernel="k_atom_shared", grid=8, block=512, params=["ptr vals", "ptr out"])],
             ["vals 4096 prng 13 s32 -5000 5000", "out 512 zeros"], ["out"])
    raw_case(fam, "scopes_and_red", P, [dict(kernel="k_atom_scopes", grid=40, block=128, params=["ptr g", "ptr g64"])],
             ["g 44 values u32 0 0 0 0 0 0xffffffff 0 0 0 0 0", "g64 24 values u64 0 0x1234 0"], ["g", "g64"],
             ".cta/.gpu/.sys scopes, red.* ops")
    raw_case(fam, "hot_spot_add", P, [dict(kernel="k_atom_hot", grid=132, block=256,
             params=["ptr bins", "ptr keys", "u32 1000000"])], ["bins 16 zeros", "keys 4000000 prng 14 u32 0 65535"],
             ["bins"], "all SMs hammering four counters")
    # hand-written: atom with every op/type in one PTX module
    gen_atom_hand()


def gen_atom_hand():
    fam = "atom"
    ops = [("add.u32", "u32", 1), ("add.u64", "u64", 1), ("add.f32", "f32", "0f3F000000"),
           ("add.f64", "f64", "0d3FF0000000000000"), ("min.s32", "s32", "%rs"), ("max.s32", "s32", "%rs"),
           ("min.u64", "u64", "%rl"), ("max.s64", "s64", "%rl"), ("and.b32", "b32", "%rn"), ("or.b64", "b64", "%rb"),
           ("xor.b32", "b32", "%rs"), ("inc.u32", "u32", 200), ("dec.u32", "u32", 300), ("exch.b32", "b32", 9),
           ("add.noftz.f16x2", "b32", "%hx"), ("add.noftz.bf16x2", "b32", "%bx"), ("add.noftz.f16", "b16", "%hh"),
           ("min.u32", "u32", "%rs"), ("max.u64", "u64", "%rl")]
    body = []
    off = 0
    for op, ty, v in ops:
        sz = 8 if ty.endswith("64") else (2 if ty == "b16" else 4)
        off = (off + sz - 1) // sz * sz
        reg = {4: "%t32", 8: "%t64", 2: "%t16"}[sz]
        if isinstance(v, int):
            v = str(v)
        if v == "%rs" or v == "%rn" or v == "%hx" or v == "%bx":
            src = {"%rs": "%rs", "%rn": "%rn", "%hx": "%hx", "%bx": "%bx"}[v]
        elif v in ("%rl", "%rb"):
            src = v
        elif v == "%hh":
            src = "%hh"
        else:
            src = v
        space = "shared" if "shared" in op else "global"
        body.append(f"\tatom.{space}.{op} {reg}, [%rd1+{off}], {src};")
        off += sz
    total = off
    ptx = f"""// Hand-written atomics: every op/type of atom on one global block of memory, all threads.
.version 8.0
.target sm_90
.address_size 64

.visible .entry k_atom_all(.param .u64 p)
{{
\t.reg .b32 %r<8>;
\t.reg .b32 %rs, %rn, %t32, %hx, %bx;
\t.reg .b64 %rl, %rb, %t64, %rd<4>;
\t.reg .b16 %t16, %hh;
\tmov.u32 %r0, %tid.x;
\tmov.u32 %r1, %ctaid.x;
\tmov.u32 %r2, %ntid.x;
\tmad.lo.u32 %r3, %r1, %r2, %r0;
\tmul.lo.u32 %r4, %r3, 2654435761;
\tshr.s32 %rs, %r4, 8;
\tnot.b32 %rn, 0;
\tshl.b32 %r5, 1, %r0;
\tnot.b32 %r5, %r5;
\tor.b32 %rn, %r5, %r1;
\tcvt.s64.s32 %rl, %rs;
\tmul.lo.s64 %rl, %rl, 1000003;
\tand.b32 %r6, %r3, 63;
\tcvt.u64.u32 %rb, %r6;
\tshl.b64 %rb, 1, %r6;
\tmov.b32 %hx, 0x3c00b800;
\tmov.b32 %bx, 0x3f80c000;
\tmov.b16 %hh, 0x3800;
\tld.param.u64 %rd1, [p];
{chr(10).join(body)}
\tret;
}}
"""
    from gen_core import wfile
    wfile("ptx/hand/atom_all.ptx", ptx)
    raw_case(fam, "all_ops_types_hand_ptx", "ptx/hand/atom_all.ptx",
             [dict(kernel="k_atom_all", grid=8, block=256, params=["ptr m"])],
             [f"m {total} zeros"],
             ["m"], f"atom.global: {', '.join(o for o, _, _ in ops)} (2048 threads, order-independent values only;"
                    f"\nf16x2/bf16x2/f16 sums of 1.0/-0.5, 1.0/-2.0, 0.5 are exact)")


def gen_bar():
    fam = "bar"
    P = "ptx/cu/bar.ptx"
    raw_case(fam, "phases_1024_threads", P, [dict(kernel="k_bar_phases", grid=4, block=1024, params=["ptr in", "ptr out"])],
             ["in 16384 prng 21 s32 -1000000 1000000", "out 16384 zeros"], ["out"], "bar.sync 0 over 32 warps, 10 phases")
    raw_case(fam, "phases_96_threads", P, [dict(kernel="k_bar_phases", grid=3, block=96, params=["ptr in", "ptr out"])],
             ["in 1152 prng 22 s32 -1000 1000", "out 1152 zeros"], ["out"], "block size not a multiple of 64")
    raw_case(fam, "red_popc_and_or", P, [dict(kernel="k_bar_red", grid=16, block=512, params=["ptr in", "ptr out"])],
             ["in 32768 prng 23 s32 -3 20", "out 512 zeros"], ["out"], "bar.red.popc/.and/.or, __syncthreads_count etc")
    raw_case(fam, "named_producer_consumer", P, [dict(kernel="k_bar_named", grid=1, block=256, params=["ptr in", "ptr out"])],
             ["in 4096 prng 24 s32 -100 100", "out 4096 zeros"], ["out"], "bar.arrive / bar.sync with ids 1-4 and count 256")
    raw_case(fam, "subset_barrier_count", P, [dict(kernel="k_bar_subset", grid=1, block=512, params=["ptr out"])],
             ["out 2048 zeros"], ["out"], "barrier.sync.aligned 5, 128 used by 4 of 16 warps")
    raw_case(fam, "spin_on_flag_forward_progress", P, [dict(kernel="k_spin_flag", grid=1, block=64, params=["ptr out"])],
             ["out 128 zeros"], ["out"], "warp 1 spins on a shared flag set by warp 0 (notes: works on NVIDIA)")
    # the shapes of the CPU backend's work-item loops (recorded on an NVIDIA H100, 2026-12-07)
    R = "ptx/cu/bar_regions.ptx"
    raw_case(fam, "regions_divergent_sites", R, [dict(kernel="k_reg_sites", grid=3, block=128, params=["ptr in", "ptr out"])],
             ["in 1536 prng 26 s32 -1000 1000", "out 1536 zeros"], ["out"], "warps wait at two bar.sync 0 sites at once")
    raw_case(fam, "regions_warp_exits", R,
             [dict(kernel="k_reg_exit", grid=2, block=96, params=["ptr in", "ptr out"])],
             ["in 768 prng 27 s32 -1000 1000", "out 768 zeros"], ["out"], "a warp exits before, one between barriers")
    raw_case(fam, "regions_local_array", R, [dict(kernel="k_reg_local", grid=2, block=64, params=["ptr in", "ptr out"])],
             ["in 8192 prng 28 s32 -100 100", "out 512 zeros"], ["out"], "a local array live across barriers")
    raw_case(fam, "regions_3d_block", R, [dict(kernel="k_reg_3d", grid=2, block=(8, 4, 3), params=["ptr in", "ptr out"])],
             ["in 768 prng 29 s32 -1000 1000", "out 768 zeros"], ["out"])
    raw_case(fam, "regions_nested_loops", R,
             [dict(kernel="k_reg_nested", grid=2, block=128, params=["ptr in", "ptr out", "s32 3", "s32 5"])],
             ["in 1024 prng 30 s32 -1000 1000", "out 1024 zeros"], ["out"], "barriers in nested loops, values carried")
    raw_case(fam, "regions_device_function", R, [dict(kernel="k_reg_devfunc", grid=2, block=(32, 2, 1), params=["ptr in", "ptr out"])],
             ["in 512 prng 31 s32 0 1000", "out 512 zeros"], ["out"], "a called function reads %tid between barriers")
    raw_case(fam, "regions_barrier_counts", R, [dict(kernel="k_reg_counts", grid=2, block=128, params=["ptr out"])],
             ["out 8192 zeros"], ["out"], "warps pass different numbers of barriers")
    raw_case(fam, "mbarrier_two_phases", P, [dict(kernel="k_mbarrier", grid=1, block=256, params=["ptr in", "ptr out"])],
             ["in 1024 prng 25 s32 -100 100", "out 2048 zeros"], ["out"])


def gen_warp():
    fam = "warp"
    P = "ptx/cu/warp.ptx"
    raw_case(fam, "shfl_modes_widths", P, [dict(kernel="k_shfl", grid=1, block=128, params=["ptr in", "ptr out"])],
             ["in 512 prng 31 s32 -100000 100000", "out 6144 zeros"], ["out"])
    raw_case(fam, "shfl_raw_clamp_valid_pred", P, [dict(kernel="k_shfl_raw", block=64, params=["ptr in", "ptr out"])],
             ["in 256 iota s32 1000 1", "out 2048 zeros"], ["out"], "shfl.sync c operand (clamp/segmask) and |p output")
    raw_case(fam, "shfl_partial_mask", P, [dict(kernel="k_shfl_partial", block=64, params=["ptr in", "ptr out"])],
             ["in 256 iota s32 7 3", "out 256 zeros"], ["out"])
    raw_case(fam, "vote_all_any_uni_ballot", P, [dict(kernel="k_vote", block=256, params=["ptr in", "ptr out"])],
             ["in 1024 prng 32 s32 -4 200", "out 8192 zeros"], ["out"],
             "includes activemask after divergence (notes: programs observe NVIDIA's value)")
    raw_case(fam, "vote_uniform_inputs", P, [dict(kernel="k_vote", block=64, params=["ptr in", "ptr out"])],
             ["in 256 fill 2a000000", "out 2048 zeros"], ["out"])
    raw_case(fam, "match_any_all", P, [dict(kernel="k_match", block=128, params=["ptr in", "ptr out"])],
             ["in 512 prng 33 s32 0 511", "out 2048 zeros"], ["out"])
    raw_case(fam, "match_all_uniform", P, [dict(kernel="k_match", block=32, params=["ptr in", "ptr out"])],
             ["in 128 fill 05010000", "out 512 zeros"], ["out"])
    raw_case(fam, "redux_sync", P, [dict(kernel="k_redux", block=128, params=["ptr in", "ptr out"])],
             ["in 512 prng 34 s32 -1000000 1000000", "out 4096 zeros"], ["out"])
    raw_case(fam, "syncwarp_partial", P, [dict(kernel="k_syncwarp_partial", block=64, params=["ptr out"])],
             ["out 256 zeros"], ["out"])
    raw_case(fam, "lanemask_regs", P, [dict(kernel="k_lanemask", block=64, params=["ptr out"])], ["out 1536 zeros"],
             ["out"])
    raw_case(fam, "shfl_scan", P, [dict(kernel="k_warp_scan", block=256, params=["ptr in", "ptr out"])],
             ["in 1024 prng 35 s32 -1000 1000", "out 1024 zeros"], ["out"])
    raw_case(fam, "elect_sync", "ptx/cu/warp90.ptx", [dict(kernel="k_elect", block=96, params=["ptr in", "ptr out"])],
             ["in 384 prng 36 s32 0 7", "out 1536 zeros"], ["out"], "elect.sync (sm_90), full and divergent masks")


def gen_sreg():
    fam = "sreg"
    P = "ptx/cu/sreg.ptx"
    for g, b in [((3, 2, 2), (8, 4, 2)), ((1, 1, 1), (1, 1, 1)), ((2, 3, 4), (4, 2, 3)), ((5, 1, 1), (32, 1, 32))]:
        nt = g[0] * g[1] * g[2] * b[0] * b[1] * b[2]
        raw_case(fam, "grid_%dx%dx%d_block_%dx%dx%d" % (g + b), P, [dict(kernel="k_sreg3d", grid=g, block=b,
                 params=["ptr out"])], [f"out {nt * 56} zeros"], ["out"],
                 "%tid %ntid %ctaid %nctaid %laneid; %warpid/%smid only range-checked")
    raw_case(fam, "clock_globaltimer_monotonic", P, [dict(kernel="k_clock", block=64, params=["ptr out"])],
             ["out 256 zeros"], ["out"], "only monotonicity flags are stored")
    for sz in [0, 100, 4096]:
        raw_case(fam, f"dynamic_smem_size_{sz}", P, [dict(kernel="k_dynsmem", block=32, shared=sz if sz else None,
                 params=["ptr out"])] if sz else [dict(kernel="k_dynsmem", block=1, params=["ptr out"])],
                 ["out 8 zeros"], ["out"])


def gen_ctrl():
    fam = "ctrl"
    P = "ptx/cu/ctrl.ptx"
    raw_case(fam, "divergence_loops_switch", P, [dict(kernel="k_diverge", grid=4, block=128,
             params=["ptr in", "ptr out", "u32 500"])], ["in 2048 prng 41 s32 -100000 100000", "out 2048 zeros"],
             ["out"])
    raw_case(fam, "calls_recursion", P, [dict(kernel="k_calls", grid=2, block=64, params=["ptr in", "ptr out", "u32 128"])],
             ["in 512 prng 42 s32 0 1000000", "out 1536 zeros"], ["out"], "noinline calls, recursive fib and ackermann")
    raw_case(fam, "indirect_calls_fnptr", P, [dict(kernel="k_indirect", grid=2, block=64,
             params=["ptr a", "ptr b", "ptr sel", "ptr out", "u32 128"])],
             ["a 512 prng 43 f32 -4 4", "b 512 prng 44 f32 -4 4", "sel 512 prng 45 u32 0 15", "out 512 zeros"], ["out"])
    raw_case(fam, "struct_args_returns", P, [dict(kernel="k_struct_call", grid=1, block=64,
             params=["ptr in", "ptr out", "u32 64"])], ["in 256 prng 46 s32 -1000 1000", "out 512 zeros"], ["out"])
    raw_case(fam, "early_exit_break", P, [dict(kernel="k_early_exit", grid=2, block=128,
             params=["ptr in", "ptr out", "u32 256"])], ["in 1024 prng 47 s32 -400 500", "out 1024 zeros"], ["out"])
    raw_case(fam, "divergent_recursion_depth", P, [dict(kernel="k_divergent_recursion", grid=1, block=128,
             params=["ptr in", "ptr out", "u32 128"])], ["in 512 prng 48 s32 0 1000", "out 512 zeros"], ["out"])
    H = "ptx/hand/ctrl_hand.ptx"
    raw_case(fam, "callprototype_indirect", H, [dict(kernel="k_callproto", block=96,
             params=["ptr in", "ptr sel", "ptr out", "u32 90"])],
             ["in 384 prng 49 s32 -5000 5000", "sel 384 prng 50 u32 0 100", "out 384 zeros"], ["out"],
             "call through .callprototype with function addresses from a .global table")
    raw_case(fam, "brx_idx_jump_table", H, [dict(kernel="k_brx", block=128, params=["ptr in", "ptr out", "u32 120"])],
             ["in 512 prng 51 u32 0 100000", "out 512 zeros"], ["out"])
    raw_case(fam, "predication", H, [dict(kernel="k_pred", block=32, params=["ptr in", "ptr out"])],
             ["in 128 prng 52 s32 -10 10", "out 128 zeros"], ["out"])
    raw_case(fam, "exit_then_barrier", H, [dict(kernel="k_exit_early", block=64, params=["ptr out"])],
             ["out 256 fill ff"], ["out"], "exited threads do not block bar.sync")


def gen_trap_printf():
    P = "ptx/cu/misc.ptx"
    raw_case("trap", "trap_one_thread", P, [dict(kernel="k_trap", block=32, params=["ptr out"])], ["out 128 zeros"],
             ["out"], "expect a launch failure; outputs are not available afterwards")
    raw_case("trap", "trap_second_launch", P, [dict(kernel="k_ok", block=32, params=["ptr out"]),
             dict(kernel="k_trap", block=32, params=["ptr out"])], ["out 128 zeros"], ["out"])
    raw_case("trap", "trap_hand_ptx", "ptx/hand/ctrl_hand.ptx", [dict(kernel="k_trap_thread", block=64,
             params=["ptr out"])], ["out 256 zeros"], ["out"])
    raw_case("trap", "assert_fails", P, [dict(kernel="k_assert", block=16, params=["ptr in", "ptr out"])],
             ["in 64 iota s32 0 1", "out 64 zeros"], ["out"], "device assert: launch error and the message on stdout")
    raw_case("trap", "assert_passes", P, [dict(kernel="k_assert", block=16, params=["ptr in", "ptr out"])],
             ["in 64 iota s32 8 1", "out 64 zeros"], ["out"])
    raw_case("trap", "null_pointer_store", P, [dict(kernel="k_null_store", block=1, params=["ptr out"])],
             ["out 8 zeros"], ["out"], "store to address 0: illegal address",
             # PoCL runs kernels on its own threads: without the opt-in null-page checks the store kills the process
             env=["P2N_OPENCL_FAULT_CHECKS=1"])
    raw_case("printf", "formats", P, [dict(kernel="k_printf_basic", block=32, params=["ptr in"])],
             ["in 20 values s32 -42 0xfffffff0 0xbeef 9 0x40490fdb"], ["in"], "vprintf, captured stdout")
    raw_case("printf", "ordered_by_barrier", P, [dict(kernel="k_printf_ordered", grid=1, block=128, params=["ptr in"])],
             ["in 16 values s32 10 20 30 40"], ["in"])
    raw_case("printf", "many_args", P, [dict(kernel="k_printf_many_args", block=1)], ["dummy 4 zeros"], ["dummy"])
    raw_case("printf", "two_launches", P, [dict(kernel="k_printf_many_args", block=1),
             dict(kernel="k_printf_ordered", block=128, params=["ptr in"])],
             ["in 16 values s32 1 2 3 4"], ["in"], "output of consecutive launches in order")


def gen_prog_cases():
    fam = "prog"
    P = "ptx/cu/prog.ptx"
    for (m, nn, k) in [(64, 64, 64), (50, 70, 33)]:
        raw_case(fam, f"matmul_tiled_{m}x{nn}x{k}", P, [dict(kernel="k_matmul_tiled", grid=((nn + 15) // 16,
                 (m + 15) // 16, 1), block=(16, 16, 1), params=["ptr A", "ptr B", "ptr C", f"u32 {m}", f"u32 {nn}",
                 f"u32 {k}"])], [f"A {4 * m * k} prng 61 f32 -2 2", f"B {4 * k * nn} prng 62 f32 -2 2",
                 f"C {4 * m * nn} zeros"], ["C"], "shared-memory tiled SGEMM with fma (exact: same op order as PTX)")
    raw_case(fam, "matmul_f64_48", P, [dict(kernel="k_matmul_f64", grid=(3, 3, 1), block=(16, 16, 1),
             params=["ptr A", "ptr B", "ptr C", "u32 48"])],
             ["A 18432 prng 63 f64 -1 1", "B 18432 prng 64 f64 -1 1", "C 18432 zeros"], ["C"])
    raw_case(fam, "histogram_atomics", P, [dict(kernel="k_histogram", grid=64, block=256,
             params=["ptr data", "ptr hist", "u32 1000000"])], ["data 1000000 prng 65 u8 0 255", "hist 1024 zeros"],
             ["hist"])
    raw_case(fam, "histogram_skewed", P, [dict(kernel="k_histogram", grid=16, block=128,
             params=["ptr data", "ptr hist", "u32 100000"])], ["data 100000 prng 66 u8 0 3", "hist 1024 zeros"],
             ["hist"])
    nb = 16
    raw_case(fam, "scan_three_kernels", P, [dict(kernel="k_scan_block", grid=nb, block=512,
             params=["ptr in", "ptr out", "ptr sums"]), dict(kernel="k_scan_sums", block=32,
             params=["ptr sums", f"u32 {nb}"]), dict(kernel="k_scan_add", grid=nb, block=512,
             params=["ptr out", "ptr sums"])],
             [f"in {4096 * nb} prng 67 s32 -1000 1000", f"out {4096 * nb} zeros", f"sums {4 * nb} zeros"],
             ["out", "sums"], "exclusive scan of 16384 ints over three launches")
    raw_case(fam, "bitonic_sort", P, [dict(kernel="k_bitonic", grid=4, block=1024, params=["ptr data"])],
             ["data 32768 prng 68 u32"], ["data"])
    raw_case(fam, "bitonic_sort_duplicates", P, [dict(kernel="k_bitonic", grid=1, block=1024, params=["ptr data"])],
             ["data 8192 prng 69 u32 0 15"], ["data"])
    raw_case(fam, "reduction_shuffle", P, [dict(kernel="k_reduce", grid=40, block=256,
             params=["ptr in", "ptr bs", "ptr isum", "u32 10000"])],
             ["in 40000 prng 70 f32 -1 1", "bs 160 zeros", "isum 8 zeros"], ["bs", "isum"])
    raw_case(fam, "stencil_jacobi", P, [dict(kernel="k_stencil", block=256,
             params=["ptr a", "ptr b", "u32 40", "u32 30", "u32 9"])],
             ["a 4800 prng 71 f32 0 100", "b 4800 zeros"], ["a", "b"])
    raw_case(fam, "nbody_forces", P, [dict(kernel="k_nbody", grid=4, block=64, params=["ptr pos", "ptr acc", "u32 256"])],
             ["pos 4096 prng 72 f32 -10 10", "acc 4096 zeros"], ["acc"], "IEEE sqrt/div sequence: exact")
    A = [f16bits(float((i * 7 + 3) % 9 - 4)) for i in range(256)]
    B = [f16bits(float((i * 5 + 1) % 7 - 3)) for i in range(128)]
    raw_case(fam, "mma_m16n8k16_f16_ldmatrix", P, [dict(kernel="k_mma_ldmatrix", block=32,
             params=["ptr A", "ptr B", "ptr C"])], [f"A 512 {vals('f16', A)}", f"B 256 {vals('f16', B)}",
             "C 1280 zeros"], ["C"], "small-integer inputs: every product and sum is exact")
    raw_case(fam, "ldmatrix_trans_x4", P, [dict(kernel="k_mma_ldmatrix_trans", block=32, params=["ptr A", "ptr out"])],
             ["A 512 iota u16 0 1", "out 512 zeros"], ["out"])
    raw_case(fam, "mma_m16n8k32_s8", P, [dict(kernel="k_mma_s8", block=32, params=["ptr A", "ptr B", "ptr C"])],
             ["A 512 prng 73 u32", "B 256 prng 74 u32", "C 512 zeros"], ["C"])
    W = [f16bits(float((i * 3) % 5 - 2)) for i in range(256)]
    W2 = [f16bits(float((i * 11) % 7 - 3)) for i in range(256)]
    raw_case(fam, "wmma_16x16x16_f16_f32", P, [dict(kernel="k_wmma", block=32,
             params=["ptr A", "ptr B", "ptr C", "ptr D"])],
             [f"A 512 {vals('f16', W)}", f"B 512 {vals('f16', W2)}", "C 1024 " + vals("f32", ["%d.0" % ((i * 13) % 7 - 3) for i in range(256)]), "D 1024 zeros"],
             ["D"], "small-integer inputs: every product and sum is exact")
    raw_case(fam, "cp_async_commit_wait", P, [dict(kernel="k_cp_async", block=128,
             params=["ptr in", "ptr out", "u32 6"])], ["in 12288 prng 76 s32 -100000 100000", "out 2560 zeros"], ["out"],
             "cp.async.ca/.cg 16 bytes, commit_group, wait_group 1, wait_all, src-size zero fill")
    raw_case(fam, "transpose_shared", P, [dict(kernel="k_transpose", grid=(3, 2, 1), block=(32, 8, 1),
             params=["ptr in", "ptr out", "u32 70", "u32 50"])], ["in 14000 prng 77 f32 -1 1", "out 14000 zeros"],
             ["out"])
    raw_case(fam, "libdevice_math", P, [dict(kernel="k_libm", grid=2, block=128,
             params=["ptr x", "ptr out", "ptr outd", "u32 256"])],
             ["x 1024 prng 78 f32 -20 20", "out 4096 zeros", "outd 4096 zeros"], ["out ulp:8:f32", "outd"],
             "libdevice expf/logf/sinf/powf (f32 paths use ex2.approx/rcp.approx: PTX ISA bounds 2 ulp / 1 ulp,\n"
             "amplified by the reduction; tolerance 8 ulp) and exp/atan2 (f64, exactly-rounded ops only: exact)")
    raw_case(fam, "stmatrix_x4", "ptx/cu/prog90.ptx", [dict(kernel="k_stmatrix", block=32, params=["ptr in", "ptr out"])],
             ["in 512 iota u32 0x00010000 0x00020002", "out 512 zeros"], ["out"], "stmatrix (sm_90)")


def gen_all(nvcc=False):
    if nvcc:
        compile_cu()
    gen_mem()
    gen_atom()
    gen_bar()
    gen_warp()
    gen_sreg()
    gen_ctrl()
    gen_trap_printf()
    gen_prog_cases()
