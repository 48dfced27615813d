"""A location's count of sites late against their directory's usual delay (kept by the
history), which the needs-action ranking reads first."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0007_site_status_changes'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='listingstatusreport',
            name='status_report_needs_action_idx',
        ),
        migrations.AddField(
            model_name='listingstatusreport',
            name='late_sites_count',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name='listingstatusreport',
            index=models.Index(condition=models.Q(('needs_action', True)), fields=['reseller', '-late_sites_count', '-need_updates_count'], name='status_report_needs_action_idx'),
        ),
    ]
