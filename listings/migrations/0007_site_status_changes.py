"""Each listing site keeps since when it holds its status and the status before it, and every
change of a site's status is kept as a row (the history of what happened to a listing).

Sites mirrored before have never been seen to change: their status is at least as old as their
last sighting, which fills `status_since` here."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F


def fill_since(apps, schema_editor):
    site = apps.get_model("listings", "ListingSite")
    site._base_manager.filter(status_since__isnull=True).update(status_since=F("last_seen_at"))


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0011_reseller_rate_limit_auto_wire_dialect'),
        ('listings', '0006_qna_dates'),
    ]

    operations = [
        migrations.AddField(
            model_name='listingsite',
            name='previous_status',
            field=models.CharField(blank=True, max_length=32, null=True),
        ),
        migrations.AddField(
            model_name='listingsite',
            name='status_since',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name='SiteStatusChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('site_id', models.IntegerField()),
                ('site_name', models.CharField(max_length=255)),
                ('from_status', models.CharField(blank=True, max_length=32)),
                ('to_status', models.CharField(blank=True, max_length=32)),
                ('at', models.DateTimeField()),
                ('source', models.CharField(choices=[('sync', 'Sync'), ('event', 'Provider event'), ('refresh', 'Refresh asked for')], default='sync', max_length=16)),
                ('business', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.business')),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['-at', '-id'],
                'indexes': [models.Index(fields=['reseller', 'business', 'site_id', 'at'], name='site_change_site_idx'), models.Index(fields=['reseller', 'site_id', 'at'], name='site_change_directory_idx'), models.Index(fields=['reseller', 'at'], name='site_change_at_idx')],
            },
        ),
        migrations.RunPython(fill_since, migrations.RunPython.noop, elidable=True),
    ]
