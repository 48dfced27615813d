"""Bind every stored provider key to the origin of the base URL it is used with today.

Keys stored before this migration were entered with some base URL; the current one is the best
record there is of it. The origin is computed here with a frozen copy of
`portal.outbound.url_origin`, so that later changes to that function do not change what this
migration did.
"""

from urllib.parse import urlsplit

from django.db import migrations, models

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    try:
        parts = urlsplit((url or "").strip())
        port = parts.port
    except ValueError:
        return ""
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in DEFAULT_PORTS or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or DEFAULT_PORTS[scheme]}"


def backfill(apps, schema_editor):
    reseller_model = apps.get_model("accounts", "Reseller")
    for pk, url in reseller_model.objects.values_list("pk", "provider_base_url").iterator():
        reseller_model.objects.filter(pk=pk).update(api_key_origin=origin_of(url))


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0007_business_list_summary_columns"),
    ]

    operations = [
        migrations.AddField(
            model_name="reseller",
            name="api_key_origin",
            field=models.CharField(blank=True, editable=False, max_length=500),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
