#!/usr/bin/env python3
"""Launch to first budget number: starts the workbench in tmux (120x40) on a
session, polls the screen until the budget meter shows a number, waits two
seconds more, and reads the process's peak resident memory (VmHWM: the
kernel's own high-water mark, so nothing between two polls is missed).
Resident memory includes the binary's pages mapped from the page cache,
which the kernel maps in large folios: run once before measuring, or drop
the caches, so that both binaries are read the same way.

    python3 scripts/startup.py target/release/formatscope SESSION [BASELINE_BINARY]

Once the number is up, the provider switch: `3` (DashScope) is pressed and
the time until the meter shows a different number is taken.

With a baseline binary (an earlier build), both run in turn, three times
each, and the ratios are printed: this machine is shared, so a figure
means something only beside a baseline measured in the same run.
"""
import subprocess, time, sys, re, os

# Seconds between two looks at the screen. Each look is a tmux client and
# a capture by the tmux server: every 10 ms they took a third of a core of
# this 2-core machine from a workbench that spreads its work over both,
# which slowed what was measured; every 50 ms they take a few percent, and
# a figure may read up to 50 ms late.
POLL = 0.05


def measure(binary, session):
    name = "su%d" % os.getpid()
    subprocess.run(["tmux", "kill-session", "-t", name], stderr=subprocess.DEVNULL)
    t0 = time.time()
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", binary, session], check=True)
    first = None
    peak = 0
    pid = None
    while time.time() - t0 < 20:
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout
        if pid is None:
            p = subprocess.run(["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"], capture_output=True, text=True).stdout.strip()
            pid = p or None
        if pid:
            try:
                for line in open(f"/proc/{pid}/status"):
                    if line.startswith("VmHWM"):
                        peak = max(peak, int(line.split()[1]))
            except FileNotFoundError:
                pass
        if first is None and re.search(r"\d[\d,]* / \d[\d,]* (max_tokens|context)", out):
            first = time.time() - t0
        if first is not None and time.time() - t0 > first + 2:
            break
        time.sleep(POLL)
    switch = None
    if first is not None:
        number = lambda: (re.search(r"\d[\d,]* / \d[\d,]* (max_tokens|context)",
                                    subprocess.run(["tmux", "capture-pane", "-p", "-t", name],
                                                   capture_output=True, text=True).stdout) or [None])[0]
        before = number()
        t1 = time.time()
        subprocess.run(["tmux", "send-keys", "-t", name, "3"], check=True)
        while time.time() - t1 < 20:
            now = number()
            if now is not None and now != before:
                switch = time.time() - t1
                break
            time.sleep(POLL)
    subprocess.run(["tmux", "kill-session", "-t", name])
    return first, peak / 1024, switch


def main():
    binary, session = sys.argv[1], sys.argv[2]
    baseline = sys.argv[3] if len(sys.argv) > 3 else None
    runs = {binary: []}
    if baseline:
        runs[baseline] = []
    for _ in range(3):
        for b in runs:
            runs[b].append(measure(b, session))
    size = os.path.getsize(session) / 2**20
    for b, rs in runs.items():
        first = sorted(r[0] for r in rs if r[0] is not None)
        mem = sorted(r[1] for r in rs)
        med = first[len(first) // 2] if first else float("nan")
        switches = sorted(r[2] for r in rs if r[2] is not None)
        sw = switches[len(switches) // 2] if switches else float("nan")
        print(f"{b}: first budget number {med:.2f} s (median of 3), provider switch to its new number {sw:.2f} s, peak RSS (VmHWM, median) {mem[1]:.1f} MiB ({mem[1]/size:.2f}x the {size:.2f} MiB session)")
    if baseline:
        def med(b, k):
            v = sorted(r[k] for r in runs[b] if r[k] is not None)
            return v[len(v) // 2]
        print(f"ratio baseline/new: first number {med(baseline, 0) / med(binary, 0):.2f}x, "
              f"switch {med(baseline, 2) / med(binary, 2):.2f}x, memory {med(baseline, 1) / med(binary, 1):.2f}x")


main()
