#!/usr/bin/env python3
"""sass_loop_stats.py — static figures of a kernel's hottest loop, to compare two builds of one kernel.

NVIDIA's OpenCL program binaries are PTX (the disk cache keeps them: $CLFORGE_CACHE_DIR/programs/*/*.bin).
Assemble one for the device and disassemble it with the CUDA tools, then give the listing to this script:

    ptxas -arch=sm_90 kernel.ptx -o kernel.cubin && nvdisasm -hex -c kernel.cubin > kernel.sass
    scripts/gpu/sass_loop_stats.py kernel.sass

For the basic block with the most FFMAs (a GEMM's K loop) it prints the instruction count, the FFMAs whose
register sources (those not served by the operand reuse cache) fall in one of the two register banks more than
once (each such extra read costs an issue cycle), and the sum of the stall counts the scheduler encoded in the
instructions' control bits (bits 41-44 of the high word; needs nvdisasm -hex). The epilogue's staged store was
found this way to triple the K loop's bank conflicts (docs/epilogue.md)."""
import re
import sys

FFMA = re.compile(r'FFMA R\d+, (R\d+)(\.reuse)?, (R\d+)(\.reuse)?, (R\d+)(\.reuse)?')
LABEL = re.compile(r'^\.L_x_\d+:')
HEX = re.compile(r'/\* (0x[0-9a-f]{16}) \*/')


def blocks(lines):
    name, cur = 'entry', []
    for line in lines:
        if LABEL.match(line):
            yield name, cur
            name, cur = line.strip(), []
        else:
            cur.append(line)
    yield name, cur


def bank_conflicts(block):
    conflicts, reused = 0, set()
    for line in block:
        m = FFMA.search(line)
        if not m:
            continue
        srcs = [(int(m.group(i)[1:]), bool(m.group(i + 1))) for i in (1, 3, 5)]
        reads = [r for slot, (r, _) in enumerate(srcs) if (slot, r) not in reused]
        banks = [r % 2 for r in reads]
        conflicts += max(max(banks.count(0), banks.count(1)) - 1, 0) if reads else 0
        reused = {(slot, r) for slot, (r, flag) in enumerate(srcs) if flag}
    return conflicts


def stall_sum(block):
    words = [int(h, 16) for line in block for h in HEX.findall(line)]
    return sum((words[i + 1] >> 41) & 0xf for i in range(0, len(words) - 1, 2)) if words else None


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for path in sys.argv[1:]:
        with open(path) as f:
            name, block = max(blocks(f.read().split('\n')), key=lambda b: sum('FFMA' in l for l in b[1]))
        n = sum(1 for l in block if re.search(r'/\*[0-9a-f]{4,}\*/', l))
        ffma = sum(1 for l in block if FFMA.search(l))
        stalls = stall_sum(block)
        print(f"{path}: loop {name} instructions {n} FFMA {ffma} bank conflicts {bank_conflicts(block)}"
              + (f" stall cycles {stalls}" if stalls is not None else ""))
    return 0


if __name__ == '__main__':
    sys.exit(main())
