"""The sites mirrored before `ListingSite.due_at` existed get their due moment, by each
reseller's delays (history.delays), so that the late-sites list finds them at once rather than
after the evening's check."""

from django.db import migrations


def fill_due_at(apps, schema_editor):
    from history.delays import delays_of_rows, due_at_of

    reseller_model = apps.get_model("accounts", "Reseller")
    delay_model = apps.get_model("history", "DirectoryDelay")
    site_model = apps.get_model("listings", "ListingSite")
    for reseller_id in reseller_model.objects.values_list("pk", flat=True):
        delays = delays_of_rows(delay_model._base_manager.filter(reseller_id=reseller_id))
        site_model._base_manager.filter(
            reseller_id=reseller_id, status__in=["Submitted", "In Progress", "Action Required"],
            status_since__isnull=False).update(due_at=due_at_of(delays))


class Migration(migrations.Migration):

    dependencies = [
        ("history", "0002_directory_delays"),
        ("listings", "0010_listing_site_due_at"),
    ]

    operations = [
        migrations.RunPython(fill_due_at, migrations.RunPython.noop, elidable=True),
    ]
