"""Helpers for tests that call the embedded sandbox through pytest-django's live server."""

import gc
import threading

from sandbox import models as sandbox
from sandbox.seeding import seed_partner
from tests.factories import BusinessFactory, ResellerFactory


def join_live_server_requests(timeout: float = 5) -> None:
    """Wait for the live server's request threads before the test hands its database back.

    A request the client gave up on is still being served, and a provider error keeps its HTTP
    connection open until the exception's reference cycle is collected: collect first.
    """
    gc.collect()
    for thread in threading.enumerate():
        if "process_request_thread" in thread.name:
            thread.join(timeout=timeout)


def connect_reseller(live_server, *, key: str, locations: int, seed: int, **extra):
    """A sandbox partner freshly seeded with `key` (1000 requests a second), and a reseller whose
    provider is that sandbox over the live server: (reseller, what seed_partner returned).

    `extra` goes to ResellerFactory (a name, another api_key, a rate_limit_count...)."""
    seeded = seed_partner(api_key=key, locations=locations, seed=seed, rate_limit=(1000, 1))
    extra.setdefault("api_key", key)
    reseller = ResellerFactory(account_number=seeded["account_number"],
                               provider_base_url=f"{live_server.url}/sandbox", **extra)
    return reseller, seeded


def mirror_enterprise(reseller, seeded, index: int = 0):
    """The seeded sandbox's enterprise `index` and its locations mirrored into Business rows as
    a sync leaves them: (enterprise, [locations], the sandbox's enterprise)."""
    remote = sandbox.Business.objects.get(number=seeded["enterprise_ids"][index])
    ent = BusinessFactory(reseller=reseller, remote_id=remote.number, name=remote.name,
                          type=remote.type, tree_path=f"/{remote.number}/", depth=0)
    locations = [BusinessFactory(reseller=reseller, remote_id=loc.number, name=loc.name,
                                 city=loc.city, state=loc.state, zip=loc.zip, parent=ent,
                                 tree_path=f"{ent.tree_path}{loc.number}/", depth=1)
                 for loc in remote.children.filter(type="Business")]
    return ent, locations, remote
