"""The client's own pooled session (keep-alive) against the sandbox: replies with and without a
body, and errors, on reused connections."""

from __future__ import annotations

import pytest

from provider import NotFound, ProviderClient

from .conftest import KEY, LIVE_DB, listing_body

pytestmark = LIVE_DB


def test_the_default_session_reuses_connections_across_reply_shapes(sandbox_url, seeded, ids,
                                                                   dialect):
    with ProviderClient(sandbox_url, KEY, max_retries=0, timeout=(5, 10),
                        dialect=dialect) as client:
        assert client.create_listing(ids.location, listing_body("Pooled Dental")) is None
        assert client.location_status(ids.location).business_name == "Pooled Dental"
        with pytest.raises(NotFound):
            client.get_media(123_456_789_012_345_678)
        assert client.update_hierarchy(ids.location, {"Region": "North"}) is None
        assert client.get_qna(ids.location).total_count is not None
        assert client.stats.requests == 5
        # All five went over one kept-alive connection, the empty 200 replies included.
        adapter = client._transport._session.get_adapter(sandbox_url)
        pools = [adapter.poolmanager.pools[key] for key in adapter.poolmanager.pools.keys()]
        assert [pool.num_connections for pool in pools] == [1]
