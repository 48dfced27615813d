"""One bulk change sent by the bench's workers, measured (bench/bulk_send.py); the report and
its table."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench import _sync_stack as stack

# Targets of issue 17 ("a 10,000-location change takes the time the provider's limit allows and
# not much more") and of the sync's 429 share (issue 16).
MAX_TIME_RATIO = 1.10
MAX_RATE_LIMITED = 0.005
SAMPLE_S = 0.25
# gunicorn's access log, as bench/bulk_send.py has it written: "%(t)s %(s)s %(m)s %(U)s".
ACCESS_LOG_FORMAT = "%(t)s %(s)s %(m)s %(U)s"
ACCESS_TIME = "[%d/%b/%Y:%H:%M:%S %z]"


@dataclass(frozen=True)
class Variant:
    name: str
    waves: list[int]


@dataclass
class SendFigures:
    variant: str
    waves: list[int]
    locations: int
    state: str
    dry_run_s: float
    will_change: int
    # From the apply to the change's `finished_at` (every item settled, the change done), and
    # to the provider's last answer.
    wall_s: float
    last_answer_s: float
    ideal_s: float
    time_ratio: float
    requests: int  # every request the provider counted, 429s included
    answered: int  # create-listing requests the provider answered (not 429)
    rate_limited: int
    rate_limited_fraction: float
    accepted_once: int  # locations whose change the provider accepted exactly once
    sent_twice: int  # locations that got this change more than once
    never_sent: int
    refused: int
    items: dict[str, int]
    outbox_attempts: int
    outbox_retried: int
    waves_timing: list[dict]  # per wave: size, queued at, first and last answer, settled at
    tasks: dict[str, dict]  # per task: count, busy seconds, statements
    worker_cpu_s: float
    server_cpu_s: float
    database_cpu_s: float  # the PostgreSQL backends of the bench's database
    # Every core's busy time meanwhile, ours and other work's: how much of the machine the run
    # had (the load average counts our own processes too).
    machine_busy_s: float
    measured_s: float  # from the apply until the workers are idle: the CPU figures' interval
    provider_hits: list[int]  # create-listing requests in each second, from the apply's
    samples: list[tuple[float, int, int]] = field(repr=False)  # at, answered, items settled
    bench_cpu_s: float = 0.0  # this process: the dry run, the apply and the sampling
    load: tuple[float, float] = (0.0, 0.0)
    paused_reason: str = ""


def send_change(*, reseller, partner, numbers: list[int], variant: Variant, set_: dict,
                marker: str, rate_limit: int, store, worker_pid: int, server_pid: int,
                access_log: Path, beat_alive) -> SendFigures:
    from django.db.models import Count

    from bulk.models import BulkChange, BulkChangeItem
    from bulk.sending import bulk_change_apply
    from bulk.services import bulk_change_create
    from outbox.models import OutboxEntry
    from portal.tenancy import tenant_scope
    from sandbox.models import ListingSubmission

    _reset_worker_counters(store)
    load_before = os.getloadavg()[0]
    with tenant_scope(reseller):
        began = time.perf_counter()
        change = bulk_change_create(tenant=reseller, actor=None,
                                    businesses={"numbers": numbers}, set=set_,
                                    waves=variant.waves, dry_run=True)
        dry_run_s = time.perf_counter() - began
    will_change = change.counts.get("will_change", 0)
    if will_change != len(numbers):
        raise stack.StackError(f"the dry run found {will_change} of {len(numbers)} locations "
                               f"to change: {change.counts}")

    workers_cpu_before = _tree_cpu_seconds(worker_pid)
    server_cpu_before = _tree_cpu_seconds(server_pid)
    database_cpu_before = _database_cpu_seconds()
    machine_busy_before = _machine_busy_seconds()
    bench_cpu_before = stack.cpu_seconds(os.getpid())
    log_offset = access_log.stat().st_size if access_log.exists() else 0
    applied_at = time.time()
    with tenant_scope(reseller):
        bulk_change_apply(tenant=reseller, actor=None, change=change)
    items = BulkChangeItem.unscoped.filter(change=change)
    entries = OutboxEntry.unscoped.filter(pk__in=items.values("outbox_entry_id"))
    settled_states = (BulkChangeItem.State.ACCEPTED, BulkChangeItem.State.REJECTED,
                      BulkChangeItem.State.FAILED, BulkChangeItem.State.SKIPPED)
    # Generous, for a machine that cannot keep up with R: the figures say how far it fell short.
    deadline = applied_at + 300 + 10 * len(numbers) / rate_limit
    samples: list[tuple[float, int, int]] = [(0.0, 0, 0)]
    while True:
        time.sleep(SAMPLE_S)
        state = BulkChange.unscoped.values_list("state", flat=True).get(pk=change.pk)
        answered = entries.filter(finished_at__isnull=False).count()
        settled = items.filter(state__in=settled_states).count()
        samples.append((round(time.time() - applied_at, 2), answered, settled))
        if state != BulkChange.State.APPLYING and not items.filter(
                state=BulkChangeItem.State.QUEUED).exists():
            break
        if time.time() > deadline:
            raise stack.StackError(f"the change was not sent in {deadline - applied_at:.0f} s "
                                   f"(state {state}, {answered} answered)")
        if not beat_alive():
            raise stack.StackError("celery beat exited during the run")
    _wait_until_idle(store)
    requests, rate_limited, per_second = _create_requests(access_log, offset=log_offset,
                                                          since=applied_at)
    workers_cpu = _tree_cpu_seconds(worker_pid) - workers_cpu_before
    server_cpu = _tree_cpu_seconds(server_pid) - server_cpu_before
    database_cpu = sum(cpu - database_cpu_before.get(pid, 0.0)
                       for pid, cpu in _database_cpu_seconds().items())
    machine_busy = _machine_busy_seconds() - machine_busy_before
    measured_s = time.time() - applied_at  # to the workers' idle: the CPU figures' interval
    bench_cpu = stack.cpu_seconds(os.getpid()) - bench_cpu_before
    change.refresh_from_db()

    # What the provider received: every create-listing body it answered since the apply (a 429
    # is refused before the body is read), and which of them carried this change.
    answered_since = ListingSubmission.objects.filter(partner=partner,
                                                      received_at__gte=_aware(applied_at))
    ours = answered_since.filter(body__contains=marker)
    per_location = dict(ours.filter(accepted=True).values_list("location__number")
                        .annotate(n=Count("pk")).order_by())
    answered = answered_since.count()
    finished = entries.filter(finished_at__isnull=False).order_by("-finished_at") \
        .values_list("finished_at", flat=True).first()
    wall_s = (change.finished_at.timestamp() if change.finished_at else time.time()) - applied_at
    ideal_s = answered / rate_limit
    attempts = entries.values_list("attempts", flat=True)
    return SendFigures(
        variant=variant.name, waves=variant.waves, locations=len(numbers), state=change.state,
        dry_run_s=round(dry_run_s, 2), will_change=will_change, wall_s=round(wall_s, 2),
        last_answer_s=round(finished.timestamp() - applied_at, 2) if finished else 0.0,
        ideal_s=round(ideal_s, 2), time_ratio=round(wall_s / ideal_s, 3) if ideal_s else 0.0,
        requests=requests, answered=answered, rate_limited=rate_limited,
        rate_limited_fraction=round(rate_limited / max(requests, 1), 4),
        accepted_once=sum(1 for n in per_location.values() if n == 1),
        sent_twice=sum(1 for n in per_location.values() if n > 1),
        never_sent=len(set(numbers) - set(per_location)),
        refused=ours.filter(accepted=False).count(),
        items=dict(items.values_list("state").annotate(n=Count("pk")).order_by()),
        outbox_attempts=sum(attempts), outbox_retried=sum(1 for n in attempts if n > 1),
        waves_timing=_waves_timing(items, since=applied_at),
        tasks=_tasks(store, since=applied_at),
        worker_cpu_s=round(workers_cpu, 1), server_cpu_s=round(server_cpu, 1),
        database_cpu_s=round(database_cpu, 1), machine_busy_s=round(machine_busy, 1),
        measured_s=round(measured_s, 2),
        bench_cpu_s=round(bench_cpu, 1),
        provider_hits=per_second,
        samples=samples, load=(load_before, os.getloadavg()[0]),
        paused_reason=change.paused_reason,
    )


def _create_requests(access_log: Path, *, offset: int, since: float
                     ) -> tuple[int, int, list[int]]:
    """The create-listing requests the sandbox's server logged from `offset` on (one line
    each, as `bench/bulk_send.py` formats them: time, status, method, path): how many, how
    many answered 429, and how many in each second from `since`'s."""
    requests = rate_limited = 0
    by_second: dict[int, int] = {}
    with access_log.open(encoding="utf-8", errors="replace") as log:
        log.seek(offset)
        for line in log:
            parts = line.split()
            if len(parts) < 5 or parts[3] != "POST" or not parts[4].endswith("/create"):
                continue
            at = datetime.strptime(f"{parts[0]} {parts[1]}", ACCESS_TIME).timestamp()
            requests += 1
            rate_limited += parts[2] == "429"
            second = int(at - int(since))
            by_second[second] = by_second.get(second, 0) + 1
    return requests, rate_limited, [by_second.get(second, 0)
                                    for second in range(max(by_second, default=-1) + 1)]


def _aware(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=UTC)


def _waves_timing(items, *, since: float) -> list[dict]:
    """Per wave: its size, when it was queued, its first and last answers (s since the apply)."""
    from django.db.models import Count, Max, Min

    rows = (items.filter(wave__isnull=False).values("wave")
            .annotate(size=Count("pk"), queued=Min("outbox_entry__created_at"),
                      first=Min("outbox_entry__finished_at"),
                      last=Max("outbox_entry__finished_at"))
            .order_by("wave"))

    def at(moment) -> float | None:
        return round(moment.timestamp() - since, 2) if moment else None

    return [{"wave": row["wave"], "size": row["size"], "queued_s": at(row["queued"]),
             "first_answer_s": at(row["first"]), "last_answer_s": at(row["last"])}
            for row in rows]


def _tasks(store, *, since: float) -> dict[str, dict]:
    """What the workers ran (bench/_sync_worker.py's timeline): per task, how many, their
    busy seconds, the statements they sent, and when the last one ended."""
    from bench._sync_worker import QUERIES_BY_TASK_KEY, TIMELINE_KEY

    started: dict[str, tuple[str, float]] = {}
    tasks: dict[str, dict] = {}
    for event in store.lrange(TIMELINE_KEY, 0, -1):
        at, pid, kind, name = event.decode().split()
        if kind == "start":
            started[pid] = (name, float(at))
        elif pid in started:
            name, begun = started.pop(pid)
            task = tasks.setdefault(name, {"count": 0, "busy_s": 0.0, "last_end_s": 0.0})
            task["count"] += 1
            task["busy_s"] += float(at) - begun
            task["last_end_s"] = max(task["last_end_s"], float(at) - since)
    for name, statements in store.hgetall(QUERIES_BY_TASK_KEY).items():
        tasks.setdefault(name.decode(), {"count": 0, "busy_s": 0.0, "last_end_s": 0.0})[
            "statements"] = int(statements)
    for task in tasks.values():
        task["busy_s"] = round(task["busy_s"], 1)
        task["last_end_s"] = round(task["last_end_s"], 1)
    return tasks


def _reset_worker_counters(store) -> None:
    from bench import _sync_worker as worker

    # Not the started and finished counts: a task running now would leave them apart for good.
    store.delete(worker.QUERIES_KEY, worker.QUERIES_BY_TASK_KEY, worker.TASKS_KEY,
                 worker.TIMELINE_KEY)


def _wait_until_idle(store, timeout: float = 600.0) -> None:
    """The step that finished the change, and the steps queued behind it, are its work too:
    the tasks counted are those of every task until the workers are idle."""
    from bench._sync_worker import FINISHED_KEY, STARTED_KEY

    deadline = time.monotonic() + timeout
    while int(store.get(STARTED_KEY) or 0) != int(store.get(FINISHED_KEY) or 0):
        if time.monotonic() > deadline:
            raise stack.StackError(f"the workers were still busy {timeout:.0f} s after the "
                                   "change was done")
        time.sleep(0.1)


def _machine_busy_seconds() -> float:
    """CPU time every core has spent on anything but idling, since boot (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:9]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def _database_cpu_seconds() -> dict[int, float]:
    """CPU time of each PostgreSQL backend connected to the bench's database (their processes
    are on this machine: the server is on loopback)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        pids = [pid for (pid,) in cursor.fetchall()]
    return {pid: stack.cpu_seconds(pid) for pid in pids}


def _tree_cpu_seconds(pid: int) -> float:
    """CPU time of a server's or worker's child processes (the main process supervises)."""
    return sum(stack.cpu_seconds(child) for child in stack.worker_children(pid))


# -- the report ----------------------------------------------------------------------------------

def build_report(args, runs: list[SendFigures], versions: dict[str, str], *, load) -> dict:
    return {
        "runs": [{k: v for k, v in asdict(run).items() if k != "samples"}
                 | {"progress": _thinned(run.samples)} for run in runs],
        "locations": args.locations,
        "rate_limit": args.rate_limit,
        "latency_ms": args.latency_ms,
        "workers": args.workers,
        "targets": {"max_time_ratio": MAX_TIME_RATIO, "max_rate_limited": MAX_RATE_LIMITED},
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cores": os.cpu_count(),
            "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30,
                               1),
            "python": platform.python_version(),
            **versions,
            "load_before": [round(v, 2) for v in load[0]],
            "load_after": [round(v, 2) for v in load[1]],
        },
    }


def _thinned(samples: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """One sample a second (the first of each), and the last."""
    kept, last = [], None
    for sample in samples:
        if last is None or int(sample[0]) != last:
            kept.append(sample)
            last = int(sample[0])
    if samples and kept[-1] is not samples[-1]:
        kept.append(samples[-1])
    return kept


def print_table(report: dict, say) -> None:
    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    say("")
    say(f"Bulk change of {report['locations']:,} locations, rate limit "
        f"{report['rate_limit']}/s, latency {report['latency_ms']} ms, "
        f"{report['workers']} workers")
    for run in report["runs"]:
        waves = ", ".join(map(str, run["waves"])) if run["waves"] else "all at once"
        say("")
        say(f"{run['variant']} (waves {waves}): {run['state']}"
            + (f" ({run['paused_reason']})" if run["paused_reason"] else "")
            + f"; load {run['load'][0]:.2f} before, {run['load'][1]:.2f} after")
        once = run["accepted_once"] == run["locations"] and not run["sent_twice"]
        rows = [
            ("wall time / ideal (N answered / R)",
             f"{run['time_ratio']:.3f} ({run['wall_s']:.1f} s / {run['ideal_s']:.1f} s)",
             f"<= {MAX_TIME_RATIO:.2f}", verdict(run["time_ratio"] <= MAX_TIME_RATIO)),
            ("requests answered 429",
             f"{run['rate_limited_fraction']:.2%} ({run['rate_limited']} of "
             f"{run['requests']:,})",
             f"<= {MAX_RATE_LIMITED:.1%}",
             verdict(run["rate_limited_fraction"] <= MAX_RATE_LIMITED)),
            ("locations sent exactly once",
             f"{run['accepted_once']:,} of {run['locations']:,}",
             "all, none twice", verdict(once)),
            ("final state", run["state"], "done", verdict(run["state"] == "done")),
        ]
        say(f"{'figure':<40} {'value':>32}  {'target':<16} result")
        for name, value, target, result in rows:
            say(f"{name:<40} {value:>32}  {target:<16} {result}")
        say(f"{'provider: last answer, sent twice, never':<40} {run['last_answer_s']:>30.1f} s"
            f"  {run['sent_twice']} twice, {run['never_sent']} never, "
            f"{run['refused']} refused")
        say(f"{'dry run (in the bench process)':<40} {run['dry_run_s']:>30.1f} s")
        say(f"{'outbox attempts (rows tried again)':<40} {run['outbox_attempts']:>32,}"
            f"  ({run['outbox_retried']})")
        say(f"{'CPU: Celery workers, sandbox server':<40} {run['worker_cpu_s']:>30.1f} s"
            f"  {run['server_cpu_s']:.1f} s")
        ours = (run["worker_cpu_s"] + run["server_cpu_s"] + run["database_cpu_s"]
                + run["bench_cpu_s"])
        cores = report["machine"]["cores"]
        say(f"{'CPU: PostgreSQL (bench database), bench':<40} {run['database_cpu_s']:>30.1f} s"
            f"  {run['bench_cpu_s']:.1f} s")
        say(f"{'cores busy: all work, this run, others':<40} "
            f"{run['machine_busy_s'] / run['measured_s']:>32.2f}  "
            f"{ours / run['measured_s']:.2f}, "
            f"{(run['machine_busy_s'] - ours) / run['measured_s']:.2f} (of {cores}, over "
            f"{run['measured_s']:.0f} s)")
        for wave in run["waves_timing"][:6]:
            say(f"{'  wave ' + str(wave['wave']) + ' (' + str(wave['size']) + ')':<40} "
                f"queued {wave['queued_s']} s, answers {wave['first_answer_s']}"
                f"-{wave['last_answer_s']} s")
        for name, task in sorted(run["tasks"].items(), key=lambda kv: -kv[1]["busy_s"]):
            say(f"{'  ' + name:<40} {task['count']:>8,} tasks {task['busy_s']:>8.1f} s busy "
                f"{task.get('statements', 0):>8,} statements, last ended "
                f"{task['last_end_s']:.1f} s")
        hits = run["provider_hits"]
        if len(hits) > 8:
            say(f"{'create-listing requests, per second':<40} first "
                f"{' '.join(map(str, hits[:5]))} ... last {' '.join(map(str, hits[-5:]))}")
    machine = report["machine"]
    say("")
    say(f"Machine: {machine['cores']} cores, {machine['memory_gb']} GB, PostgreSQL "
        f"{machine['postgresql']}, Redis {machine['redis']}; load {machine['load_before'][0]}"
        f" before, {machine['load_after'][0]} after.")
