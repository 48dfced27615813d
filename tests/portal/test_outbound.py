import pytest

from portal.outbound import UnsafeURL, check_outbound_url, check_provider_base_url, url_origin


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


NOT_GLOBAL = [
    "100.64.0.1", "100.127.255.254",  # carrier-grade NAT
    "[2002:c0a8:0101::1]",  # 6to4 of 192.168.1.1
    "[fec0::1]",  # site-local
    "[::ffff:10.0.0.1]",  # IPv4-mapped private address
    "[64:ff9b::a00:1]",  # NAT64 of 10.0.0.1
    "192.0.0.8", "192.0.0.9",  # IETF protocol assignments
    "198.18.0.1",  # benchmarking
    "0.0.0.0", "169.254.169.254", "[fd00::1]", "127.0.0.1", "[::1]", "10.0.0.1",
    "224.0.0.1", "[ff02::1]", "240.0.0.1",
]
GLOBAL = ["8.8.8.8", "1.1.1.1", "[2606:4700:4700::1111]", "[::ffff:8.8.8.8]",
          "[64:ff9b::808:808]"]


@pytest.mark.parametrize("host", NOT_GLOBAL)
def test_addresses_that_are_not_globally_routable_are_refused(settings, host):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    for scheme in ("https", "http"):
        with pytest.raises(UnsafeURL, match="private or loopback"):
            check_outbound_url(f"{scheme}://{host}/api")


@pytest.mark.parametrize("host", GLOBAL)
def test_public_addresses_are_allowed_with_https(settings, host):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    assert check_provider_base_url(f"https://{host}/api/") == f"https://{host}/api"
    with pytest.raises(UnsafeURL, match="must use https"):
        check_provider_base_url(f"http://{host}/api")


def _resolving_to(monkeypatch, *addresses):
    def getaddrinfo(host, *args, **kwargs):
        assert host == "provider.example"
        return [(10 if ":" in a else 2, 1, 6, "", (a, 0)) for a in addresses]

    monkeypatch.setattr("portal.outbound.socket.getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("address", [host.strip("[]") for host in NOT_GLOBAL])
def test_a_name_resolving_to_an_address_that_is_not_global_is_refused(settings, monkeypatch,
                                                                      address):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = False
    _resolving_to(monkeypatch, address)
    with pytest.raises(UnsafeURL, match="private or loopback"):
        check_provider_base_url("https://provider.example/api")
    # One such address among public ones is enough: the connection may pick any of them.
    _resolving_to(monkeypatch, "93.184.215.14", address)
    with pytest.raises(UnsafeURL, match="private or loopback"):
        check_provider_base_url("https://provider.example/api")


@pytest.mark.parametrize("host", ["100.64.0.1", "[fec0::1]", "127.0.0.1", "[2002:c0a8:0101::1]"])
def test_the_sandbox_setting_still_allows_internal_hosts_over_http(settings, host):
    settings.PROVIDER_ALLOW_PRIVATE_HOSTS = True
    assert check_provider_base_url(f"http://{host}:8000/sandbox/") == \
        f"http://{host}:8000/sandbox"


@pytest.mark.parametrize(("url", "origin"), [
    ("https://provider.example/api", "https://provider.example:443"),
    ("HTTPS://Provider.Example:443/api/", "https://provider.example:443"),
    ("https://provider.example:8443", "https://provider.example:8443"),
    ("http://127.0.0.1:8000/sandbox/", "http://127.0.0.1:8000"),
    ("http://[::1]/x", "http://[::1]:80"),
    ("ftp://provider.example/", ""),
    ("https:///nohost", ""),
    ("https://provider.example:99999/", ""),
    ("", ""),
])
def test_url_origin_normalises_scheme_host_and_port(url, origin):
    assert url_origin(url) == origin
