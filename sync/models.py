"""What a sync run is made of, as rows: its steps, so that a dead worker's part is taken up."""

from django.db import models
from django.utils import timezone

from portal.tenancy import TenantOwned


class SyncStep(TenantOwned):
    """One step of a run's attempt handed to a worker: the tree walk, a chunk of locations, or
    the account resources, with what the worker needs to do it again.

    A worker claims a step before it works on it and gives a sign of life (`heartbeat_at`)
    every few seconds while it does; the sweep hands a step whose worker fell silent to
    another, and one whose task never started (a broker that lost it) is queued again. Done
    and counted in one transaction, so that a step is counted once however often it runs.
    """

    class Kind(models.TextChoices):
        WALK = "walk", "Tree walk"
        CHUNK = "chunk", "Locations"
        ACCOUNT = "account", "Account resources"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey("accounts.SyncRun", on_delete=models.CASCADE, related_name="steps")
    attempt = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    arguments = models.JSONField(default=dict, help_text="The step's task arguments.")
    expected = models.PositiveIntegerField(
        default=1, help_text="What the step counts towards the run's total.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    deliveries = models.PositiveSmallIntegerField(
        default=0, help_text="How many times a worker took it up.")
    lost_worker = models.BooleanField(
        default=False, help_text="Its worker was lost, and it waits for another to take it up.")
    dispatched_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The sweep's read: the unfinished steps of running runs.
            models.Index(fields=["state", "heartbeat_at"], name="sync_step_open_idx",
                         condition=models.Q(state__in=["queued", "running"])),
            models.Index(fields=["run", "attempt", "state"], name="sync_step_run_idx"),
            # A step handed out after a waiting one and started says the waiting one is lost.
            models.Index(fields=["dispatched_at"], name="sync_step_dispatched_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of sync {self.run_id} ({self.get_state_display()})"
