"""Django admin pages of the sandbox for support staff."""

from __future__ import annotations

from sandbox.models import Listing, ListingSubmission, PartnerAccount
from sandbox.seeding import seed_partner


def test_pages_load_and_never_show_the_key(admin_client, transactional_db):
    seed_partner(api_key="admin-visible-secret-key", locations=3, seed=1)
    partner = PartnerAccount.objects.get()
    listing = Listing.objects.first() or Listing.objects.create(
        partner=partner, location=partner.businesses.filter(type="Business").first()
    )
    ListingSubmission.objects.create(
        partner=partner,
        location=listing.location,
        received_at=listing.location.last_updated,
        body='{"businessInfo": {"name": "Sent"}}',
        accepted=False,
        error_code=2511,
    )
    pages = [
        "/admin/sandbox/partneraccount/",
        f"/admin/sandbox/partneraccount/{partner.pk}/change/",
        "/admin/sandbox/business/",
        f"/admin/sandbox/business/?q={listing.location.number}",
        "/admin/sandbox/business/?q=not-a-number",
        f"/admin/sandbox/business/{listing.location.pk}/change/",
        "/admin/sandbox/listing/",
        f"/admin/sandbox/listing/{listing.pk}/change/",
        "/admin/sandbox/listingsubmission/",
        f"/admin/sandbox/listingsubmission/{ListingSubmission.objects.get().pk}/change/",
        "/admin/sandbox/subscription/",
    ]
    for page in pages:
        response = admin_client.get(page)
        assert response.status_code == 200, page
        text = response.content.decode()
        assert "admin-visible-secret-key" not in text
        assert partner.key_hash not in text


def test_fault_injection_is_editable(admin_client, transactional_db):
    seed_partner(api_key="admin-edit-key", locations=1, seed=1)
    partner = PartnerAccount.objects.get()
    response = admin_client.post(
        f"/admin/sandbox/partneraccount/{partner.pk}/change/",
        {
            "name": partner.name,
            "new_api_key": "",
            "rate_limit_count": 5,
            "rate_limit_window_seconds": 10,
            "latency_ms": 250,
            "error_rate": 0.5,
            "status_step_seconds": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    partner.refresh_from_db()
    assert (partner.rate_limit_count, partner.latency_ms, partner.error_rate) == (5, 250, 0.5)
    assert partner.key_prefix == "admi"  # a third of the key at most


def test_a_partner_added_in_admin_gets_a_hashed_key(admin_client, transactional_db):
    response = admin_client.post(
        "/admin/sandbox/partneraccount/add/",
        {
            "name": "Manual partner",
            "new_api_key": "manual-key-123",
            "rate_limit_count": 100,
            "rate_limit_window_seconds": 60,
            "latency_ms": 0,
            "error_rate": 0,
            "status_step_seconds": 60,
        },
    )
    assert response.status_code == 302
    partner = PartnerAccount.objects.get(name="Manual partner")
    assert partner.key_prefix == "manu" and len(partner.key_hash) == 64
