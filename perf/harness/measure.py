"""Profiling, timing and the figures written out: what every row and load test reads its numbers with."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@contextmanager
def profiled(path: str | None) -> Iterator[None]:
    """Profile the block with pyinstrument into `path` (text) when asked."""
    if not path:
        yield
        return
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        Path(path).write_text(profiler.output_text(unicode=True, show_all=False))


def machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy since boot (Linux `/proc/stat`), or None."""
    try:
        with open("/proc/stat") as stat:
            user, nice, system, _idle, _iowait, irq, softirq = (int(n) for n in stat.readline().split()[1:8])
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def process_cpu() -> float:
    """CPU seconds this process has spent, every thread's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class CpuSpent:
    """CPU seconds spent over a block: by this process, and by the rest of the machine (None where unknown)."""

    python: float = 0.0
    other: float | None = None


@contextmanager
def cpu_spent() -> Iterator[CpuSpent]:
    """The CPU the block cost this process and the rest of the machine, filled in when it ends."""
    spent = CpuSpent()
    python, machine = process_cpu(), machine_busy()
    yield spent
    spent.python = process_cpu() - python
    busy = machine_busy()
    spent.other = None if machine is None or busy is None else max(0.0, busy - machine - spent.python)


def quantile(values: list[float], q: float) -> float:
    """The `q` quantile of `values` (the value at that rank, none interpolated); 0 of none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes, as a person reads it beside a figure."""
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def write_json(path: str | Path, figures: Any) -> None:
    """The figures written to `path` as JSON, its folder made if need be."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n")
