"""Each reseller's usual delays of the directory sites: its own figures and the learned ones."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0011_reseller_rate_limit_auto_wire_dialect'),
        ('history', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='DirectoryDelay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('site_id', models.IntegerField()),
                ('site_name', models.CharField(blank=True, max_length=255)),
                ('days', models.PositiveIntegerField(blank=True, help_text='Usual days from Submitted to Synced.', null=True)),
                ('in_progress_days', models.PositiveIntegerField(blank=True, help_text='Usual days from In Progress to Synced, if not the same.', null=True)),
                ('learned_days', models.PositiveIntegerField(blank=True, null=True)),
                ('learned_transitions', models.PositiveIntegerField(default=0)),
                ('learned_at', models.DateTimeField(blank=True, null=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['site_id'],
                'constraints': [models.UniqueConstraint(fields=('reseller', 'site_id'), name='history_directory_delay_unique')],
            },
        ),
    ]
