#!/usr/bin/env python3
"""Whether reduce_by_key's kernels keep the resident blocks their tuning was measured with (no GPU needed).

reduce_by_key's one-pass kernel (include/reducelab/segmented/kernels/reduce_runs.cuh) is latency bound: its speed
follows the blocks an SM holds at once, and that follows the registers ptxas gives each instantiation, which differ a
lot between functors and types of the same size. At stop 35 a change that was 2-4 % faster in the harness (with the
harness's own functor) took the library's plus/float instantiation from 121 to 144 registers, one resident block
fewer, and plus/float ran 10 % slower in the H100 compare (results/NVIDIA_H100_80GB_HBM3-segmented/
rerun-d93180c-segmented.md). Nothing on a CPU sees that except the built binary's resource usage, so this reads it.

For every reduce_runs kernel at the library's tile (tuning.hpp: by_key_threads threads; a kernel of another width is
a harness's or a ladder variant's and is not checked), from `cuobjdump --dump-resource-usage`:
  - registers that let at least MIN_BLOCKS blocks of by_key_threads threads reside on an SM of 64 K registers
    (allocated per warp in units of 256, i.e. per thread in multiples of 8);
  - a stack frame (where ptxas spills) of at most MAX_STACK bytes.
MIN_BLOCKS is by_key_min_warps x 32 / by_key_threads (tuning.hpp; 4): what the kernel's __launch_bounds__ asks of
every pair (tuning::by_key_min_blocks; of pairs wider than 8 bytes only before stop 37), and what every instantiation
met when the committed compares were taken (127-128 registers since stop 37). MAX_STACK is 16: ptxas
spills 4 bytes of maximum/float (an 8-byte frame, as before stop 35); larger frames were the sign of a squeezed kernel
(argmax spilled 64 bytes under a 128-register cap at stop 35).

  python3 scripts/check_kernel_resources.py build/reducelab [--min-blocks N] [--max-stack 16] [--list]
  python3 scripts/check_kernel_resources.py --self-test    (the parsing and the arithmetic; no cuobjdump needed)

Exits 1 naming each kernel that fails, 2 if no kernel was checked, 77 (a CTest skip) without cuobjdump.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sass_loads import demangle, find_tool  # noqa: E402

REGISTERS_PER_SM = 65536
ALLOCATION_UNIT = 8  # registers per thread are allocated in multiples of 8 (256 per warp)
TUNING_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "reducelab", "segmented",
                             "tuning.hpp")

FUNCTION = re.compile(r"^\s*Function\s+(\S+):\s*$")
USAGE = re.compile(r"REG:(\d+)\s+STACK:(\d+)")
# reduce_runs<Threads, Items, ...> in the mangled name: _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24E...
BY_KEY = re.compile(r"reducelab9segmented7kernels11reduce_runsILi(\d+)ELi(\d+)E")


def tuning_value(name, header=TUNING_HEADER):
    with open(header) as f:
        m = re.search(r"inline constexpr int " + name + r" = (\d+);", f.read())
    if not m:
        raise SystemExit(f"check_kernel_resources: {name} not found in {header}")
    return int(m.group(1))


def resident_blocks(registers, threads):
    per_thread = -(-max(registers, 1) // ALLOCATION_UNIT) * ALLOCATION_UNIT
    return REGISTERS_PER_SM // (per_thread * threads)


def usage(text):
    """(mangled name, registers, stack bytes) of every function in cuobjdump --dump-resource-usage output."""
    name = None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            name = m.group(1)
            continue
        m = USAGE.search(line)
        if m and name:
            yield name, int(m.group(1)), int(m.group(2))
            name = None


def verdicts(text, threads, min_blocks, max_stack):
    """(mangled name, registers, stack bytes, blocks, ok) of every by-key kernel at `threads` threads."""
    for name, regs, stack in usage(text):
        m = BY_KEY.search(name)
        if not m or int(m.group(1)) != threads:
            continue
        blocks = resident_blocks(regs, threads)
        yield name, regs, stack, blocks, stack <= max_stack and blocks >= min_blocks


def self_test():
    sample = """
Fatbin elf code:
================
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24EiflNS_8functors4plusEN4cuda3std3__48equal_toIvEEEEvPKT1_:
  REG:121 STACK:0 SHARED:25648 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24EiflNS_8functors4plusEN4cuda3std3__48equal_toIvEEEEvPKT2_:
  REG:144 STACK:0 SHARED:25648 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24EiNS_8functors11value_indexIfjEElNS3_6argmaxE:
  REG:128 STACK:40 SHARED:37936 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24EiflNS_8functors7maximumEN4cuda3std3__48equal_toIvEE:
  REG:96 STACK:8 SHARED:26672 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi256ELi512ENS_8functors4plusEidEEvPKT2_:
  REG:240 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:585 TEXTURE:0 SURFACE:0 SAMPLER:0
"""
    got = [(regs, stack, blocks, ok) for _, regs, stack, blocks, ok in verdicts(sample, 128, 4, 16)]
    # 121 registers -> 128 per thread -> 4 blocks (passes); 144 -> 3 blocks (d93180c's plus/float: fails); a 40-byte
    # frame fails however many blocks fit, an 8-byte one passes; the 256-thread kernel is not the library's tile.
    want = [(121, 0, 4, True), (144, 0, 3, False), (128, 40, 4, False), (96, 8, 5, True)]
    assert got == want, got
    assert resident_blocks(96, 128) == 5 and resident_blocks(87, 128) == 5 and resident_blocks(129, 128) == 3
    print("check_kernel_resources self-test: ok")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--min-blocks", type=int, help="default: by_key_min_warps x 32 / by_key_threads (tuning.hpp)")
    parser.add_argument("--max-stack", type=int, default=16)
    parser.add_argument("--list", action="store_true", help="print every checked kernel")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.binary:
        parser.error("a binary to read (or --self-test)")
    cuobjdump = find_tool("cuobjdump", "CUOBJDUMP")
    if not cuobjdump:
        print("check_kernel_resources: no cuobjdump (CUDA Toolkit, PATH, $CUOBJDUMP or $REDUCELAB_TOOLS_DIR); "
              "scripts/reducelab.sh fetches it from PyPI", file=sys.stderr)
        return 77
    text = subprocess.run([cuobjdump, "--dump-resource-usage", args.binary], capture_output=True, text=True,
                          check=True).stdout
    threads = tuning_value("by_key_threads")
    if args.min_blocks is None:
        args.min_blocks = max(1, tuning_value("by_key_min_warps") * 32 // threads)
    rows = list(verdicts(text, threads, args.min_blocks, args.max_stack))
    names = demangle([r[0] for r in rows])
    failed = 0
    for name, regs, stack, blocks, ok in rows:
        if args.list or not ok:
            print(f"{'ok  ' if ok else 'FAIL'} {regs:3d} registers, {stack:4d} bytes of stack, {blocks} blocks of "
                  f"{threads}: {names[name][:160]}")
        failed += 0 if ok else 1
    if not rows:
        print(f"check_kernel_resources: no reduce_runs kernel of {threads} threads in {args.binary}", file=sys.stderr)
        return 2
    print(f"check_kernel_resources: {len(rows) - failed} of {len(rows)} by-key kernels keep at least "
          f"{args.min_blocks} resident blocks, with at most {args.max_stack} bytes of stack")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
