"""URLs the provider sends (listing site links, media) only become links or images when they
are http(s): a javascript: or data: URL is shown as text."""

import re

import pytest
from django.template import Context, Template
from django.urls import reverse

from accounts.models import Role
from media_app.models import MediaItem
from portal.templatetags.portal_tags import http_url
from tests.accounts.ui_factories import SiteFactory, StatusReportFactory
from tests.factories import BusinessFactory

HOSTILE = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\x01javascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "data:image/svg+xml,<svg onload=alert(1)>",
    "vbscript:msgbox(1)",
    "//evil.example/x.png",
    "/relative/path",
    "https:alert(1)",
    "http://",
    "",
    None,
]


@pytest.mark.parametrize("url", HOSTILE)
def test_http_url_refuses_what_is_not_an_http_url_with_a_host(url):
    assert http_url(url) == ""


@pytest.mark.parametrize("url", [
    "https://images.example.com/front.jpg",
    "http://maps.example/listing?id=1&x=2",
    "HTTPS://Directory.Example/Listing",
    "https://[2001:db8::1]:8443/a",
])
def test_http_url_keeps_http_urls(url):
    assert http_url(url) == url


def test_http_url_output_is_still_escaped_in_templates():
    rendered = Template('{% load portal_tags %}<a href="{{ url|http_url }}">').render(
        Context({"url": 'https://x.example/"><script>'}))
    assert rendered == '<a href="https://x.example/&quot;&gt;&lt;script&gt;">'


def _links(page: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', page)


@pytest.mark.django_db
def test_the_media_page_shows_a_javascript_url_as_text(member_client):
    client, membership = member_client(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    for number, (url, media_format) in enumerate([
            ("javascript:alert(1)", "PHOTO"), ("javascript:alert(2)", "VIDEO"),
            ("data:image/svg+xml,<svg onload=alert(3)>", "PHOTO"),
            ("https://images.example.com/ok.jpg", "PHOTO")]):
        MediaItem.unscoped.create(reseller=business.reseller, business=business,
                                  remote_id=f"m{number}", url=url, category="EXTERIOR",
                                  format=media_format, description=f"Item {number}")
    page = client.get(reverse("business_media", args=[business.reseller.slug,
                                                      business.remote_id])).content.decode()
    assert not [link for link in _links(page) if "alert" in link]
    assert '<small class="url">javascript:alert(1)</small>' in page
    assert '<small class="url">javascript:alert(2)</small>' in page
    assert "data:image/svg+xml,&lt;svg onload=alert(3)&gt;" in page
    assert '<img src="https://images.example.com/ok.jpg"' in page


@pytest.mark.django_db
def test_the_listing_status_page_shows_a_javascript_site_url_as_text(member_client):
    client, membership = member_client(Role.VIEWER)
    business = BusinessFactory(reseller=membership.reseller)
    StatusReportFactory(business=business)
    SiteFactory(business=business, site_name="Evil Directory", url="javascript:alert(1)")
    SiteFactory(business=business, site_name="Good Directory", url="https://maps.example/a")
    page = client.get(reverse("business_detail", args=[business.reseller.slug,
                                                       business.remote_id])).content.decode()
    assert "Evil Directory" in page
    assert not [link for link in _links(page) if "alert" in link]
    assert '<span class="muted">javascript:alert(1)</span>' in page
    assert 'href="https://maps.example/a"' in page
