import pytest

from portal.outbound import UnsafeURL, check_provider_base_url


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/sandbox", "http://localhost:8000/sandbox/", "https://10.1.2.3/api",
])
def test_loopback_and_private_hosts_are_allowed_only_when_the_setting_says(settings, url):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = True
    assert check_provider_base_url(url) == url.rstrip("/")
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    with pytest.raises(UnsafeURL, match="private or loopback"):
        check_provider_base_url(url)


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest", "https://[::1]/x",
                                 "https://0.0.0.0/x", "https://192.168.1.1/"])
def test_link_local_metadata_and_unspecified_hosts_are_refused(settings, url):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    with pytest.raises(UnsafeURL):
        check_provider_base_url(url)


def test_public_hosts_need_https(settings, monkeypatch):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    monkeypatch.setattr("portal.outbound.socket.getaddrinfo",
                        lambda *a, **k: [(2, 1, 6, "", ("93.184.215.14", 0))])
    assert check_provider_base_url("https://provider.example/resources/") == \
        "https://provider.example/resources"
    with pytest.raises(UnsafeURL, match="https"):
        check_provider_base_url("http://provider.example/resources")


@pytest.mark.parametrize("url", ["ftp://provider.example/", "https:///nohost",
                                 "https://user:pw@provider.example/"])
def test_malformed_urls_are_refused(url):
    with pytest.raises(UnsafeURL):
        check_provider_base_url(url)
