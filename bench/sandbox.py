"""The sandbox under load: requests per second of the provider operations a sync makes most
(child businesses, location status report, get media, get Q&A), served by gunicorn on loopback
to a concurrent load generator. The sandbox is the load-test target of the other benches, so it
must answer faster than the portal asks.

    .venv/bin/python bench/sandbox.py [--json] [--locations 5000] [--seconds 10]

Needs PostgreSQL and Redis on 127.0.0.1 (see --help). See docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _web_env  # noqa: E402
import _web_load  # noqa: E402

API_KEY = "bench-sandbox-key-0001"
# A reseller's default rate limit in the portal (Reseller.rate_limit_count per second): one
# sync never asks more of one provider key, so the sandbox must serve at least this for the
# operations a sync makes once per location. The child list is asked once per container (a
# few calls per sync, each answering hundreds of children): reported, without a target.
MIN_REQUESTS_PER_SECOND = 100
PER_LOCATION = ("location_status", "get_media", "get_qna")
# The bench measures throughput, not the sandbox's rate limiting: a limit it never reaches
# (the per-request counting still runs).
UNREACHED_RATE_LIMIT = "1000000000/60"


def operations(seeded: dict) -> dict[str, list[_web_load.Request]]:
    """Name -> the requests of that operation, cycling over the seeded businesses."""
    headers = {"x-api-key": API_KEY}
    locations = seeded["location_numbers"]
    containers = [seeded["account_number"], *seeded["sub_reseller_ids"],
                  *seeded["enterprise_ids"]]
    qna_body = json.dumps({"startIndex": 0, "pageSize": 100}).encode()
    return {
        "child_businesses": [
            _web_load.Request("GET", f"/sandbox/v1/business/child/all?pid={number}",
                              headers=headers) for number in containers],
        "location_status": [
            _web_load.Request("GET", f"/sandbox/v1/listing/status/location?businessNumber={n}",
                              headers=headers) for n in locations],
        "get_media": [
            _web_load.Request("GET", f"/sandbox/v1/business/{n}/media/get", headers=headers)
            for n in locations],
        "get_qna": [
            _web_load.Request("POST", f"/sandbox/v1/qna/get?businessId={n}", body=qna_body,
                              headers={**headers, "Content-Type": "application/json"})
            for n in locations],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _web_env.add_common_arguments(parser)
    parser.add_argument("--locations", type=int, default=5000,
                        help="locations seeded for the partner key (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="measured seconds per operation, after 2 s of warm-up")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument("--only", nargs="*", help="measure only these operations")
    parser.add_argument("--strict", action="store_true",
                        help="exit with 1 when a target is missed")
    args = parser.parse_args(argv)
    say = _web_env.log

    _web_env.django_setup(args)
    from sandbox.seeding import seed_partner

    say(f"Seeding the sandbox partner with {args.locations} locations…")
    seeded = seed_partner(api_key=API_KEY, locations=args.locations, seed=1,
                          rate_limit=UNREACHED_RATE_LIMIT, latency_ms=0, error_rate=0.0)
    # Seeding happened in this process; the server's processes open their own connections.
    from django.db import connections

    connections.close_all()

    _web_env.warn_if_busy()
    report = _web_env.Report(
        title=f"bench/sandbox.py: sandbox operations under load ({args.locations:,} locations, "
              f"gunicorn {args.workers}x{args.threads}, {args.concurrency} connections)")
    results = {}
    env = _web_env.server_environment(args)
    with _web_load.gunicorn(env, workers=args.workers, threads=args.threads,
                            ready_path="/sandbox/openapi.json") as port:
        for name, requests in operations(seeded).items():
            if args.only and name not in args.only:
                continue
            say(f"Loading {name} for {args.seconds:g} s…")
            results[name] = result = _web_load.load(
                port, requests, concurrency=args.concurrency, seconds=args.seconds).as_dict()
            say(f"  {result['requests_per_second']} requests/s, median "
                f"{result['latency_median_ms']} ms, p95 {result['latency_p95_ms']} ms, "
                f"{result['errors']} errors")
            report.check(f"{name}: requests/s", result["requests_per_second"],
                         MIN_REQUESTS_PER_SECOND if name in PER_LOCATION else None, "req/s",
                         at_least=True)
            report.check(f"{name}: mean response", result["mean_response_bytes"], None,
                         "bytes")
            report.check(f"{name}: latency median", result["latency_median_ms"], None, "ms")
            report.check(f"{name}: latency p95", result["latency_p95_ms"], None, "ms")
            report.check(f"{name}: errors", result["errors"], 0, "responses")

    report.figures = {
        "bench": "sandbox", "machine": _web_env.machine(),
        "data": {"locations": args.locations,
                 "containers": 1 + len(seeded["sub_reseller_ids"])
                 + len(seeded["enterprise_ids"])},
        "operations": results,
        "gunicorn": {"workers": args.workers, "threads": args.threads,
                     "concurrency": args.concurrency},
    }
    report.print(args.json)
    return 1 if args.strict and not report.all_met else 0


if __name__ == "__main__":
    sys.exit(main())
