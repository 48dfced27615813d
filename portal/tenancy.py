"""The tenant scope: the one place that decides which reseller's rows a query may see.

Tenant-owned models use `TenantManager` as their default manager. It refuses to build a queryset
unless a scope is active, and then filters by that reseller, so a forgotten filter fails loudly
instead of leaking another tenant's rows. The scope is entered only at entry points: the tenant
view mixin, the API base view, the `tenant_task` decorator and management commands. Code that
must see every tenant (Django admin for support staff, the sync of the tree itself) says so by
using the `unscoped` manager, which a reviewer can grep for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, TypeVar

from django.apps import apps
from django.conf import settings
from django.db import models

# The tenant model (settings.TENANT_MODEL) is named, not imported: this ground layer knows no
# app, so a tenant is typed as the model it is.
Reseller = models.Model

_current_tenant: ContextVar[Reseller | None] = ContextVar("current_tenant", default=None)

F = TypeVar("F", bound=Callable[..., Any])


class TenantScopeMissing(RuntimeError):
    """A tenant-owned model was queried with no tenant scope active."""


def current_tenant() -> Reseller:
    tenant = _current_tenant.get()
    if tenant is None:
        raise TenantScopeMissing(
            "No tenant scope is active. Enter one with tenant_scope(reseller), or use the "
            "model's `unscoped` manager where seeing every tenant is intended."
        )
    return tenant


@contextmanager
def tenant_scope(reseller: Reseller) -> Iterator[Reseller]:
    if reseller is None or reseller.pk is None:
        raise TenantScopeMissing("tenant_scope() needs a saved reseller.")
    token = _current_tenant.set(reseller)
    try:
        yield reseller
    finally:
        _current_tenant.reset(token)


def enter_tenant_scope(reseller: Reseller) -> Token[Reseller | None]:
    """For entry points that cannot wrap their work in `with tenant_scope(...)` (DRF resolves
    the tenant in `initial()` and finishes in `finalize_response()`); pair with exit."""
    if reseller is None or reseller.pk is None:
        raise TenantScopeMissing("enter_tenant_scope() needs a saved reseller.")
    return _current_tenant.set(reseller)


def exit_tenant_scope(token: Token[Reseller | None]) -> None:
    _current_tenant.reset(token)


def tenant_task(func: F) -> F:
    """Run a task body inside the scope of the reseller named by its `reseller_id` argument."""

    @functools.wraps(func)
    def wrapper(*args: Any, reseller_id: int, **kwargs: Any) -> Any:
        # The tenant model is named by a setting: this ground layer imports no app.
        reseller = apps.get_model(settings.TENANT_MODEL).objects.get(pk=reseller_id)
        with tenant_scope(reseller):
            return func(*args, reseller_id=reseller_id, **kwargs)

    return wrapper  # type: ignore[return-value]


class TenantQuerySet(models.QuerySet):
    pass


class TenantManager(models.Manager.from_queryset(TenantQuerySet)):  # type: ignore[misc]
    """Default manager of tenant-owned models: scoped to the current tenant, or it raises."""

    def get_queryset(self) -> TenantQuerySet:
        tenant = current_tenant()
        return super().get_queryset().filter(reseller_id=tenant.pk)

    def none(self) -> TenantQuerySet:
        # An empty queryset reveals nothing, so it needs no scope (schema generation uses it).
        return super().get_queryset().none()


class TenantOwned(models.Model):
    """Abstract base of every row that belongs to one reseller."""

    reseller = models.ForeignKey(settings.TENANT_MODEL, on_delete=models.CASCADE,
                                 related_name="+")

    objects = TenantManager()
    # The named bypass: every use of it is a place that deliberately crosses tenants.
    unscoped = models.Manager()  # noqa: DJ012 - ruff reads this manager as a field

    class Meta:
        abstract = True
