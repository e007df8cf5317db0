"""Benchmark: does bounded concurrency keep an endpoint busy?

A stub OpenAI-compatible server on 127.0.0.1 answers every request after 200 ms. The real
client path (openai_backend.py through the openai package, retries, call log) sends 32 distinct calls
at concurrency 8 (ideal 32 / 8 * 0.2 s = 0.8 s) and at concurrency 1 (ideal 6.4 s) as the baseline,
each on a client warmed up by one call. The stub runs in this process, so its threads
compete with the client for the GIL: the overhead measured is an upper bound.
Target: concurrency 8 within 1.5x of ideal. Exit status 1 when the target is missed.

    python benchmarks/llm_concurrency.py [--calls 32] [--concurrency 8] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from llm_stub import StubServer

from arcmemo.llm.client import LLM, LLMSettings


def measure(base_url: str, calls: int, concurrency: int, tag: str) -> float:
    settings = LLMSettings(base_url=base_url, api_key="sk-bench", solver_model="bench",
                           aux_model="bench", select_model="bench", concurrency=concurrency,
                           timeout_s=30)
    with LLM(settings) as llm:
        # warm-up: the client's one-time setup (imports, TLS context, first connection,
        # ~0.1 s) is paid once per run, so it stays outside the timed batch
        llm.chat([{"role": "user", "content": f"{tag} warm-up"}], role="solver", step="solve")

        async def fan_out():
            return await asyncio.gather(*(
                llm.achat([{"role": "user", "content": f"{tag} call {i}"}], role="solver", step="solve")
                for i in range(calls)))

        started = time.perf_counter()
        results = llm.run(fan_out())
        elapsed = time.perf_counter() - started
    assert len(results) == calls and not any(r.cached for r in results)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    os.environ["ARCMEMO_LOG_DB"] = str(Path(tempfile.mkdtemp()) / "calls.db")   # fresh cache

    with StubServer(delay_s=args.delay) as stub:
        rows = []
        for concurrency in (args.concurrency, 1):
            ideal = args.calls / concurrency * args.delay
            elapsed = measure(stub.base_url, args.calls, concurrency, f"c{concurrency}")
            rows.append((concurrency, elapsed, ideal))
        peak = stub.max_in_flight
    print(f"{args.calls} calls, stub latency {args.delay * 1000:.0f} ms")
    print(f"{'concurrency':>11} {'wall s':>8} {'ideal s':>8} {'ratio':>6}")
    for concurrency, elapsed, ideal in rows:
        print(f"{concurrency:>11} {elapsed:>8.3f} {ideal:>8.3f} {elapsed / ideal:>6.2f}")
    print(f"peak requests in flight at the server: {peak} (bound {args.concurrency})")
    ratio = rows[0][1] / rows[0][2]
    ok = ratio < 1.5 and peak <= args.concurrency
    print(f"target: concurrency {args.concurrency} under 1.5x ideal -> {'PASS' if ok else 'FAIL'} ({ratio:.2f}x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
