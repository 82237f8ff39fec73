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
  - registers that let as many blocks of by_key_threads threads reside on an SM of 64 K registers (allocated per warp
    in units of 256, i.e. per thread in multiples of 8) as the kernel's __launch_bounds__ minimum asks; the kernel's
    name states that minimum (reduce_runs<Threads, Items, MinBlocks, ...>, from tuning::by_key_min_blocks);
  - a minimum of at least MIN_BLOCKS: the fewest any row of tuning.hpp's by_key_shapes asks (min_warps x 32 /
    by_key_threads; 4 since stop 46, for 12-byte pairs of number values and for structs; pairs up to 8 bytes ask 5), so
    that a kernel bound to fewer blocks than the tuning states fails;
  - a stack frame (where ptxas spills) of at most MAX_STACK bytes.
The stream path's kernels (kernels/stream_runs.cuh, stream_runs<by_key_stream_policy, MinBlocks, ...>, of the
policy's threads) are held to the same three rules, with the smallest of the policy's min_blocks as their floor (its
blocks must all be resident at once, and ptxas gave int32 keys with doubles 48 bytes of spill under 4 blocks).
MAX_STACK is 16: ptxas spilled 4 bytes of maximum/float (an 8-byte frame, before stop 35); larger frames were the
sign of a squeezed kernel (argmax spilled 64 bytes under a 128-register cap at stop 35, the 12-byte pairs 124-152
bytes at 26 items under 4 blocks before stop 46, when the guarded tile stopped setting the registers; since then no
by-key kernel of the four built-in functors spills).

  python3 scripts/check_kernel_resources.py build/reducelab [--min-blocks N] [--max-stack 16] [--list]
  python3 scripts/check_kernel_resources.py --self-test    (the parsing and the arithmetic; no cuobjdump needed)

Exits 1 naming each kernel that fails, 2 if no kernel was checked, 77 (a CTest skip) without cuobjdump.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sass_loads import demangle, find_tool  # noqa: E402

REGISTERS_PER_SM = 65536
ALLOCATION_UNIT = 8  # registers per thread are allocated in multiples of 8 (256 per warp)
TUNING_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "reducelab", "segmented",
                             "tuning.hpp")

FUNCTION = re.compile(r"^\s*Function\s+(\S+):\s*$")
USAGE = re.compile(r"REG:(\d+)\s+STACK:(\d+)")
# reduce_runs<Threads, Items, MinBlocks, ...> in the mangled name:
# _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi26ELi4E...
BY_KEY = re.compile(r"reducelab9segmented7kernels11reduce_runsILi(\d+)ELi(\d+)ELi(\d+)E")
STREAM = re.compile(r"reducelab9segmented7kernels11stream_runsINS0_6tuning20by_key_stream_policyELi(\d+)E")
STREAM_POLICY = re.compile(r"struct by_key_stream_policy \{(.*?)\n\};", re.S)
SHAPES = re.compile(r"by_key_shapes\[\]\s*=\s*\{(.*?)\};", re.S)
SHAPE_ROW = re.compile(r"\{\s*(\d+)\s*,\s*(?:true|false)\s*,\s*(\d+)\s*,\s*(\d+)\s*\}")


def tuning_value(name, header=TUNING_HEADER):
    with open(header) as f:
        m = re.search(r"inline constexpr int " + name + r" = (\d+);", f.read())
    if not m:
        raise SystemExit(f"check_kernel_resources: {name} not found in {header}")
    return int(m.group(1))


def stream_policy(header=TUNING_HEADER):
    """(threads, fewest min_blocks) of tuning.hpp's by_key_stream_policy."""
    with open(header) as f:
        m = STREAM_POLICY.search(f.read())
    threads = re.search(r"static constexpr int threads = (\d+);", m.group(1)) if m else None
    bounds = re.search(r"min_blocks = [^;?]*\? (\d+) : (\d+);", m.group(1)) if m else None
    if not threads or not bounds:
        raise SystemExit(f"check_kernel_resources: no by_key_stream_policy threads and min_blocks in {header}")
    return int(threads.group(1)), min(int(bounds.group(1)), int(bounds.group(2)))


def fewest_warps(header=TUNING_HEADER):
    """The smallest min_warps of tuning.hpp's by_key_shapes rows."""
    with open(header) as f:
        m = SHAPES.search(f.read())
    rows = SHAPE_ROW.findall(m.group(1)) if m else []
    if not rows:
        raise SystemExit(f"check_kernel_resources: no by_key_shapes rows in {header}")
    return min(int(warps) for _, _, warps in rows)


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


def verdicts(text, threads, min_blocks, max_stack, stream=(256, 3)):
    """(mangled name, registers, stack bytes, blocks, bound, threads, ok) of every by-key kernel at `threads` threads
    and every stream-path kernel (of stream[0] threads, bound to at least stream[1] blocks); bound is the kernel's own
    __launch_bounds__ minimum, which must be at least the floor."""
    for name, regs, stack in usage(text):
        m = BY_KEY.search(name)
        if m and int(m.group(1)) == threads:
            width, bound, floor = threads, int(m.group(3)), min_blocks
        else:
            m = STREAM.search(name)
            if not m:
                continue
            width, bound, floor = stream[0], int(m.group(1)), stream[1]
        blocks = resident_blocks(regs, width)
        yield name, regs, stack, blocks, bound, width, stack <= max_stack and blocks >= bound and bound >= floor


def self_test():
    sample = """
Fatbin elf code:
================
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24ELi4EiflNS_8functors4plusEN4cuda3std3__48equal_toIvEEEEvPKT2_:
  REG:121 STACK:0 SHARED:25648 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24ELi4EiflNS_8functors4plusEN4cuda3std3__48equal_toIvEEEEvPKT3_:
  REG:144 STACK:0 SHARED:25648 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24ELi4EiNS_8functors11value_indexIfjEElNS3_6argmaxE:
  REG:128 STACK:40 SHARED:37936 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi24ELi4EiflNS_8functors7maximumEN4cuda3std3__48equal_toIvEE:
  REG:96 STACK:8 SHARED:26672 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi26ELi3EidlNS_8functors4plusEN4cuda3std3__48equal_toIvEE:
  REG:168 STACK:0 SHARED:43056 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi128ELi26ELi2EidlNS_8functors7maximumEN4cuda3std3__48equal_toIvEE:
  REG:200 STACK:0 SHARED:43056 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11reduce_runsILi256ELi512ELi1ENS_8functors4plusEidEEvPKT2_:
  REG:240 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:585 TEXTURE:0 SURFACE:0 SAMPLER:0
"""
    got = [(regs, stack, blocks, bound, ok) for _, regs, stack, blocks, bound, _, ok in verdicts(sample, 128, 3, 16)]
    # 121 registers -> 128 per thread -> 4 blocks, as its bound asks (passes); 144 -> 3 blocks under a 4-block bound
    # (d93180c's plus/float: fails); a 40-byte frame fails however many blocks fit, an 8-byte one passes; 168
    # registers -> 3 blocks under a 3-block bound passes; a 2-block bound fails, fewer than any tuning row asks; the
    # 256-thread kernel is not the library's tile.
    want = [(121, 0, 4, 4, True), (144, 0, 3, 4, False), (128, 40, 4, 4, False), (96, 8, 5, 4, True),
            (168, 0, 3, 3, True), (200, 0, 2, 2, False)]
    assert got == want, got
    stream_sample = """
 Function _ZN9reducelab9segmented7kernels11stream_runsINS0_6tuning20by_key_stream_policyELi4EiiiN10exact_test3addEN4cuda3std3__48equal_toIvEEEEvPKT0_:
  REG:64 STACK:0 SHARED:41268 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11stream_runsINS0_6tuning20by_key_stream_policyELi4EidxN10exact_test3addEN4cuda3std3__48equal_toIvEEEEvPKT0_:
  REG:64 STACK:24 SHARED:41364 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11stream_runsINS0_6tuning20by_key_stream_policyELi3EidxN10exact_test3addEN4cuda3std3__48equal_toIvEEEEvPKT0_:
  REG:80 STACK:0 SHARED:41364 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _ZN9reducelab9segmented7kernels11stream_runsINS0_6tuning20by_key_stream_policyELi2EidxN10exact_test3addEN4cuda3std3__48equal_toIvEEEEvPKT0_:
  REG:120 STACK:0 SHARED:41364 LOCAL:0 CONSTANT[0]:632 TEXTURE:0 SURFACE:0 SAMPLER:0
"""
    got = [(regs, stack, blocks, bound, width, ok)
           for _, regs, stack, blocks, bound, width, ok in verdicts(stream_sample, 128, 3, 16, (256, 3))]
    # 64 registers at 256 threads -> 4 blocks under a 4-block bound (passes); 24 bytes of stack (int32 keys with
    # doubles under 4 blocks) fails; 80 registers -> 3 blocks under 3 passes; a 2-block bound is under the floor.
    want = [(64, 0, 4, 4, 256, True), (64, 24, 4, 4, 256, False), (80, 0, 3, 3, 256, True),
            (120, 0, 2, 2, 256, False)]
    assert got == want, got
    assert resident_blocks(96, 128) == 5 and resident_blocks(87, 128) == 5 and resident_blocks(129, 128) == 3
    assert resident_blocks(168, 128) == 3
    header = ("struct by_key_shape {};\ninline constexpr by_key_shape by_key_shapes[] = {\n    {8, false, 26, 16},\n"
              "    {12, true, 26, 12},\n    {0, false, 0, 16},\n};\n")
    with tempfile.NamedTemporaryFile("w", suffix=".hpp", delete=False) as f:
        f.write(header)
    try:
        assert fewest_warps(f.name) == 12, fewest_warps(f.name)
    finally:
        os.unlink(f.name)
    print("check_kernel_resources self-test: ok")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--min-blocks", type=int, help="the fewest blocks a kernel may be bound to; default: the "
                        "smallest min_warps of by_key_shapes (tuning.hpp) x 32 / by_key_threads")
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
        args.min_blocks = max(1, fewest_warps() * 32 // threads)
    stream = stream_policy()
    rows = list(verdicts(text, threads, args.min_blocks, args.max_stack, stream))
    names = demangle([r[0] for r in rows])
    failed = 0
    for name, regs, stack, blocks, bound, width, ok in rows:
        if args.list or not ok:
            print(f"{'ok  ' if ok else 'FAIL'} {regs:3d} registers, {stack:4d} bytes of stack, {blocks} blocks of "
                  f"{width} (bound {bound}): {names[name][:160]}")
        failed += 0 if ok else 1
    if not rows:
        print(f"check_kernel_resources: no reduce_runs kernel of {threads} threads in {args.binary}", file=sys.stderr)
        return 2
    print(f"check_kernel_resources: {len(rows) - failed} of {len(rows)} by-key kernels keep the resident blocks "
          f"their bound asks (at least {args.min_blocks}; the stream path's, of {stream[0]} threads, at least "
          f"{stream[1]}), with at most {args.max_stack} bytes of stack")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
