#!/usr/bin/env python3
"""How many 16-byte loads each kernel keeps in flight, read from its SASS (no GPU needed).

A kernel written to issue V independent loads before it uses any (agent/block_vectors.cuh, agent/warp_tiles.cuh)
only does so if ptxas schedules it that way, and ptxas twice did not: for cuda::maximum on float it put each fold
between two loads, so one load was in flight instead of four and the one-block path ran 1.5x slower; and in the
non-commutative 8-byte warp-tile kernel at dc3a8fd (reverted) it put a tile's first store to shared memory before
its third load, two in flight instead of four, 3-5 % slower (results/*-lib/last-block-in-order.txt). Nothing on a
CPU sees that except the machine code, so this reads it.

For each 16-byte global load (LDG.E.128, less the .STRONG ones: those poll other blocks' published partials) the
script counts the 16-byte loads issued from it up to the first instruction that reads its registers, itself included
(its "depth"), in address order. A run of V loads issued back to back has depths V,
V-1, ..., 1: a "batch". A run that does not count down that way is cut where it stops, and each piece counts no more
loads than its first one's depth. Loads issued one at a time (each used before the next is issued) are batches of
one. A checked kernel passes when at least half of its 16-byte loads are in batches of at least V, its loads per
thread, read from its template arguments (--vectors-arg); a kernel with V = 1 has nothing to check. Edges (a last
partial pass, a head) make small batches, hence "half".

  python3 scripts/check_sass_loads.py build/reducelab [--check REGEX] [--vectors-arg N | --loads N]
                                      [--list [--kernel REGEX]]
  python3 scripts/check_sass_loads.py --self-test   (the counting rules on known machine code; no cuobjdump needed)

By default the script checks the kernels reducelab::reduce launches on a Hopper GPU: the one-block and multi-block
kernels (single_pass_few_blocks at single_pass's shape), at the shapes include/reducelab/tuning/sm90.hpp gives each
value size, of the built-in commutative functors over arithmetic values (the direct fold) and of affine_compose (the
warp tiles, and the one-block kernel's thread runs). Other shapes are `reducelab tune`'s candidates, which it times
rather than trusts. --check REGEX checks every demangled kernel it matches instead, whatever its shape, each at the
loads its --vectors-arg-th template argument gives, or at --loads N. (CTest sass.segmented_in_order_loads checks the
merge-path kernels of affine_compose at 4: the pieces walk's groups and the warp tiles of agent/in_order_tiles.cuh;
at stop 51 a change elsewhere in that kernel made ptxas fold between the groups' loads, batches [1, 3, 1, 3, 2, 2, 2,
2, 4, 4, 4], and affine maps in segments of 24 ran 1.15x slower on the H200.) The script
exits 1 naming each checked kernel that keeps fewer loads in flight, 2 if none was checked. --list prints every
kernel with its 16-byte loads' depths.
cuobjdump and the nvdisasm it runs come from $CUOBJDUMP / $NVDISASM, PATH, the CUDA Toolkit, or $REDUCELAB_TOOLS_DIR
(where scripts/reducelab.sh puts the ones it fetches from PyPI); without them the script exits 77, which CTest
reports as a skip.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# The functors and value types of the default check (see the module doc), and each value type's size in bytes.
DEFAULT_KERNELS = re.compile(
    # single_pass_few_blocks and single_pass_pass_blocks are checked at single_pass's shapes: the suffix is not part of
    # the kernel's name here.
    r"^void reducelab::kernels::(?P<kernel>one_block|single_pass)(?:_few_blocks|_pass_blocks)?"
    r"<(?P<threads>\d+), (?P<vectors>\d+), "
    r"reducelab::functors::(?P<functor>plus|maximum|minimum|multiplies|bit_and|bit_or|bit_xor|logical_and|logical_or|"
    r"affine_compose), (?P<type>[^,<>]+(?:<[^<>]*>)?)\s*>")
VALUE_BYTES = {"bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
               "unsigned int": 4, "float": 4, "long": 8, "unsigned long": 8, "double": 8,
               "reducelab::functors::affine_map<unsigned int>": 8, "reducelab::functors::affine_map<unsigned long>": 16}
POLICY_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "reducelab", "tuning",
                             "sm90.hpp")
# policy<threads, vectors, blocks per SM, one-block threads, one-block bytes[, one-block vectors[, pass-block bytes,
# pass-block vectors[, the direct fold's blocks per SM[, the warp tiles' pass-block bytes]]]]> (tuning/policy.hpp); the
# grid fields do not change a shape.
POLICY = re.compile(r"struct sm90<(\d+)> : policy<(\d+), (\d+), \d+, (\d+), \d+(?:, (\d+))?(?:, (\d+), (\d+))?(?:, \d+)?(?:, \d+)?>")


def sm90_shapes(header=POLICY_HEADER):
    """{(kernel, value bytes): {(threads, loads per thread): loads that must stay in flight}} for the size classes
    tuning/sm90.hpp tunes. The multi-block kernel at vectors_per_thread must keep all of them in flight. Where the
    policy sets pass blocks, the direct fold's kernel at pass_blocks_vectors ("single_pass_direct") must keep at least
    vectors_per_thread: ptxas starts some 8-byte functors' folds after 6 of 8 loads (plus/double: depths
    [6, 6, 6, 5, 4, 3, 2, 1], results/NVIDIA_H100_80GB_HBM3-lib/pass-blocks.txt), which measured faster than the
    resident grid all the same; a schedule that serializes the loads still fails."""
    shapes = {}
    with open(header) as f:
        text = f.read()
    specializations = len(re.findall(r"struct sm90<\d+> :", text))
    matched = len(POLICY.findall(text))
    if matched != specializations:  # a policy this pattern misreads would drop out of the check unnoticed
        raise SystemExit(f"check_sass_loads: {header}: {specializations} sm90 policies, {matched} of them read")
    for m in POLICY.finditer(text):
        size, threads, vectors, one_threads, one_vectors, pass_bytes, pass_vectors = m.groups()
        shapes[("single_pass", int(size))] = {(int(threads), int(vectors)): int(vectors)}
        shapes[("single_pass_direct", int(size))] = dict(shapes[("single_pass", int(size))])
        if pass_vectors and int(pass_bytes) != 0:
            shapes[("single_pass_direct", int(size))].setdefault((int(threads), int(pass_vectors)), int(vectors))
        shapes[("one_block", int(size))] = {(int(one_threads), int(one_vectors or vectors)): int(one_vectors or vectors)}
    return shapes


def launched_on_sm90(name, shapes):
    """The loads `name` must keep in flight if it is a kernel of the default check at a shape sm90.hpp gives its
    value size, else 0."""
    m = DEFAULT_KERNELS.match(name)
    if not m or m.group("type").strip() not in VALUE_BYTES:
        return 0
    kernel = m.group("kernel")
    if kernel == "single_pass" and m.group("functor") != "affine_compose":
        kernel = "single_pass_direct"  # the commutative functors' direct fold, which pass blocks run
    key = (kernel, VALUE_BYTES[m.group("type").strip()])
    return shapes.get(key, {}).get((int(m.group("threads")), int(m.group("vectors"))), 0)


REG = re.compile(r"\bR(\d+)(\.64)?\b")
LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def find_tool(name, env_var):
    tools = os.environ.get("REDUCELAB_TOOLS_DIR")
    for candidate in (os.environ.get(env_var), shutil.which(name), "/usr/local/cuda/bin/" + name,
                      tools and os.path.join(tools, name)):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def registers(operand_text):
    regs = set()
    for m in REG.finditer(operand_text):
        base = int(m.group(1))
        regs.update((base, base + 1) if m.group(2) else (base,))
    return regs


def parse(instruction):
    """(opcode, destination registers, source registers) of one SASS instruction, predicate stripped."""
    text = re.sub(r"^@!?U?P\w+\s+", "", instruction)
    opcode, _, operands = text.partition(" ")
    parts = [p.strip() for p in operands.split(",")]
    stores = opcode.startswith(("ST", "RED", "ATOM", "BRA", "BAR", "EXIT", "RET", "CALL", "WARPSYNC", "BSYNC"))
    if stores or not parts or not parts[0].startswith("R"):
        return opcode, set(), registers(operands)
    return opcode, registers(parts[0]), registers(",".join(parts[1:]))


def load_depths(instructions):
    """Depth (see the module doc) of each LDG.E.128, in address order."""
    depths = []
    pending = []  # [index into depths, its registers, loads issued since]
    for ins in instructions:
        opcode, dst, src = parse(ins)
        still = []
        for entry in pending:
            if entry[1] & src:
                depths[entry[0]] = entry[2]
            elif entry[1] & dst:  # overwritten before any use: count what it had
                depths[entry[0]] = entry[2]
            else:
                still.append(entry)
        pending = still
        # .STRONG loads are the last block's polls of the other blocks' published partials (ld.relaxed.gpu,
        # grid/tagged_partials.cuh), not the fold's: counting them made a kernel whose fold was fine fail (6fffa1c,
        # results/NVIDIA_H100_80GB_HBM3-lib/last-block-warp-fold.txt).
        if opcode.startswith("LDG") and ".128" in opcode and ".STRONG" not in opcode:
            for entry in pending:
                entry[2] += 1
            depths.append(None)
            pending.append([len(depths) - 1, dst, 1])
    for entry in pending:  # never read (or read after the end): count what it had
        depths[entry[0]] = entry[2]
    return depths


def kernels(cuobjdump, binary):
    run = subprocess.run([cuobjdump, "-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{cuobjdump} -sass {binary} exited with {run.returncode}: {run.stderr.strip()[-400:]}")
    out = run.stdout
    name, body = None, []
    for line in out.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = LINE.search(line)
        if name and m:
            body.append(m.group(2))
    if name:
        yield name, body


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return dict(zip(names, names))
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))


def batches(depths):
    """Sizes of the batches (see the module doc): a batch of b loads has depths b, b-1, ..., 1. A run that does not
    count down that way is cut where it stops, and each piece counts no more loads than its first one's depth:
    depths [2, 3, 2, 1] (the first load's registers read after two loads are issued, then three in flight) are
    batches [1, 3], not one of 4."""
    sizes, i = [], 0
    while i < len(depths):
        j = i
        while j + 1 < len(depths) and depths[j + 1] == depths[j] - 1:
            j += 1
        sizes.append(min(depths[i], j - i + 1))
        i = j + 1
    return sizes


def in_flight_enough(depths, vectors):
    return 2 * sum(b for b in batches(depths) if b >= vectors) >= len(depths)


def template_arg(name, index):
    """The index-th template argument of the kernel's name (top level), as an int, or None."""
    inner = name[name.index("<") + 1:] if "<" in name else ""
    args, level, cur = [], 0, ""
    for ch in inner:
        if ch == "<":
            level += 1
        elif ch == ">":
            if level == 0:
                break
            level -= 1
        if ch == "," and level == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    args.append(cur.strip())
    try:
        return int(args[index])
    except (IndexError, ValueError):
        return None


def self_test():
    """The counting rules on machine code whose verdict is known, no cuobjdump needed (CTest sass.counting_rules)."""
    cases = [
        # (SASS lines, loads per thread, depths, passes)
        # Four loads, then their stores: all four in flight.
        (["LDG.E.128.CONSTANT R8, desc[UR8][R36.64]", "LDG.E.128.CONSTANT R12, desc[UR8][R36.64+0x200]",
          "LDG.E.128.CONSTANT R16, desc[UR8][R36.64+0x400]", "LDG.E.128.CONSTANT R20, desc[UR8][R36.64+0x600]",
          "STS.128 [R32], R8", "STS.128 [R30+0x200], R12", "STS.128 [R29+0x400], R16", "STS.128 [R28+0x600], R20"],
         4, [4, 3, 2, 1], True),
        # dc3a8fd's affine_compose tile loop: the first store before the third load, two in flight.
        (["LDG.E.128.CONSTANT R12, desc[UR12][R4.64+-0x800]", "LDG.E.128.CONSTANT R8, desc[UR12][R4.64+-0x600]",
          "STS.128 [R16], R12", "LDG.E.128.CONSTANT R12, desc[UR12][R4.64+-0x400]",
          "LDG.E.128.CONSTANT R16, desc[UR12][R4.64+-0x200]", "STS.128 [R24+0x200], R8", "STS.128 [R25+0x400], R12",
          "STS.128 [R29+0x600], R16"],
         4, [2, 3, 2, 1], False),
        # Each load folded before the next (stop 25's maximum/float): one in flight.
        (["LDG.E.128 R4, desc[UR4][R2.64]", "FMNMX R0, R4, R0, !PT", "LDG.E.128 R8, desc[UR4][R2.64+0x10]",
          "FMNMX R0, R8, R0, !PT"],
         2, [1, 1], False),
        # The last block's polls of published partials are not the fold's loads.
        (["LDG.E.128.STRONG.GPU R8, desc[UR8][R8.64]", "LDG.E.128 R4, desc[UR4][R2.64]",
          "LDG.E.128 R12, desc[UR4][R2.64+0x10]", "IADD3 R0, R4, R12, RZ"],
         2, [2, 1], True),
    ]
    failed = 0
    for lines, vectors, want_depths, want_pass in cases:
        depths = load_depths(lines)
        verdict = in_flight_enough(depths, vectors)
        if depths != want_depths or verdict != want_pass:
            failed += 1
            print(f"check_sass_loads self-test: depths {depths} (want {want_depths}), passes {verdict} "
                  f"(want {want_pass}) for {lines[:3]}...")
    if not launched_on_sm90("void reducelab::kernels::single_pass<256, 4, reducelab::functors::affine_compose, "
                            "reducelab::functors::affine_map<unsigned int> >(...)", {("single_pass", 8): {(256, 4): 4}}):
        failed += 1
        print("check_sass_loads self-test: affine_compose's 8-byte kernel is not recognised at its policy shape")
    if not launched_on_sm90("void reducelab::kernels::single_pass_few_blocks<256, 4, reducelab::functors::"
                            "affine_compose, reducelab::functors::affine_map<unsigned int> >(...)",
                            {("single_pass", 8): {(256, 4): 4}}):
        failed += 1
        print("check_sass_loads self-test: affine_compose's few-blocks kernel is not recognised at its policy shape")
    shapes = sm90_shapes()
    if launched_on_sm90("void reducelab::kernels::single_pass<512, 8, reducelab::functors::plus, int>(...)",
                        shapes) != 4:
        failed += 1
        print("check_sass_loads self-test: the 4-byte policy's pass blocks (512 x 8, 4 in flight) are not read")
    if launched_on_sm90("void reducelab::kernels::single_pass<256, 8, reducelab::functors::affine_compose, "
                        "reducelab::functors::affine_map<unsigned int> >(...)", shapes):
        failed += 1
        print("check_sass_loads self-test: a pass-block shape is taken for affine_compose, which never runs one")
    if launched_on_sm90("void reducelab::kernels::one_block<256, 8, reducelab::functors::plus, float>(...)",
                        {("one_block", 4): {(512, 4): 4}}):
        failed += 1
        print("check_sass_loads self-test: a tuning candidate's shape is taken for the policy's")
    print(f"check_sass_loads self-test: {len(cases) + 5} cases, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", nargs="?", help="an executable, library or cubin holding sm_90 code")
    ap.add_argument("--self-test", action="store_true", help="check the counting rules on known machine code instead")
    ap.add_argument("--kernel", default=".", help="only kernels whose demangled name matches (listing)")
    ap.add_argument("--check", help="kernels that must keep their loads in flight (default: see the module doc)")
    ap.add_argument("--vectors-arg", type=int, default=1, help="template argument holding the loads per thread")
    ap.add_argument("--loads", type=int, help="with --check: the loads per thread every checked kernel must keep in "
                    "flight, for kernels whose template arguments do not say (the segmented kernels')")
    ap.add_argument("--list", action="store_true", help="print each kernel's 16-byte load depths")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.binary:
        ap.error("a binary to read, or --self-test")
    cuobjdump = find_tool("cuobjdump", "CUOBJDUMP")
    nvdisasm = find_tool("nvdisasm", "NVDISASM")  # cuobjdump -sass runs it
    if not cuobjdump or not nvdisasm:
        missing = " and ".join(n for n, p in (("cuobjdump", cuobjdump), ("nvdisasm", nvdisasm)) if not p)
        print(f"check_sass_loads: skipped: {missing} not found ($CUOBJDUMP / $NVDISASM, PATH, /usr/local/cuda/bin, "
              "$REDUCELAB_TOOLS_DIR); scripts/reducelab.sh fetches both from PyPI", file=sys.stderr)
        return 77
    os.environ["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + os.environ.get("PATH", "")
    try:
        found = list(kernels(cuobjdump, args.binary))
    except RuntimeError as e:
        print(f"check_sass_loads: {e}", file=sys.stderr)
        return 2
    names = demangle([n for n, _ in found])
    shapes = None if args.check else sm90_shapes()
    checked, failed = 0, []
    for mangled, body in found:
        name = names[mangled]
        depths = load_depths(body)
        if args.list and re.search(args.kernel, name) and depths:
            print(f"batches {batches(depths)}  {name}  depths {depths}")
        required = 0 if args.check else launched_on_sm90(name, shapes)
        if not (re.search(args.check, name) if args.check else required):
            continue
        vectors = required or args.loads or template_arg(name, args.vectors_arg)
        if vectors is None:
            print(f"check_sass_loads: no loads-per-thread argument at {args.vectors_arg} in {name}", file=sys.stderr)
            return 2
        if vectors < 2:
            continue
        checked += 1
        if not depths or not in_flight_enough(depths, vectors):
            failed.append((name, vectors, depths))
    for name, vectors, depths in failed:
        print(f"fewer than {vectors} loads in flight: {name}\n  16-byte load depths in address order: {depths}")
    print(f"check_sass_loads: {checked} kernels with 2 or more loads per thread checked, {len(failed)} keep fewer "
          "in flight than they ask for")
    if checked == 0:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
