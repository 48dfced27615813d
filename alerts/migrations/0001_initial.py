"""Alerts, their notifications, the rules and members' channels."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0011_reseller_rate_limit_auto_wire_dialect'),
    ]

    operations = [
        migrations.CreateModel(
            name='Alert',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('listing_rejected', 'Listing change rejected'), ('site_late', "Site late against its directory's usual delay"), ('needs_action_rising', 'Sites needing action rising'), ('rating_falling', 'Average rating falling'), ('low_ratings_rising', 'One- and two-star reviews rising'), ('sync_failed', 'Sync failed'), ('key_rejected', 'Provider key rejected'), ('event_failed', 'Provider event failed')], max_length=32)),
                ('cause', models.CharField(help_text='What the alert is about, once.', max_length=200)),
                ('title', models.CharField(max_length=300)),
                ('message', models.TextField()),
                ('link', models.CharField(help_text='The page to act on (a path).', max_length=500)),
                ('data', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('business', models.ForeignKey(blank=True, help_text='The location or subtree; empty: the whole account.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.business')),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='AlertRule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('listing_rejected', 'Listing change rejected'), ('site_late', "Site late against its directory's usual delay"), ('needs_action_rising', 'Sites needing action rising'), ('rating_falling', 'Average rating falling'), ('low_ratings_rising', 'One- and two-star reviews rising'), ('sync_failed', 'Sync failed'), ('key_rejected', 'Provider key rejected'), ('event_failed', 'Provider event failed')], max_length=32)),
                ('enabled', models.BooleanField(default=True)),
                ('threshold', models.PositiveIntegerField(blank=True, null=True)),
                ('amount', models.DecimalField(blank=True, decimal_places=2, max_digits=3, null=True)),
                ('period_days', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['kind'],
            },
        ),
        migrations.CreateModel(
            name='Notification',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('listing_rejected', 'Listing change rejected'), ('site_late', "Site late against its directory's usual delay"), ('needs_action_rising', 'Sites needing action rising'), ('rating_falling', 'Average rating falling'), ('low_ratings_rising', 'One- and two-star reviews rising'), ('sync_failed', 'Sync failed'), ('key_rejected', 'Provider key rejected'), ('event_failed', 'Provider event failed')], max_length=32)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('channel', models.CharField(choices=[('off', 'Off'), ('portal', 'In the portal only'), ('email', 'In the portal and by email at once'), ('digest', 'In the portal and in the daily email digest')], help_text="The member's channel for the kind when it was sent.", max_length=8)),
                ('read_at', models.DateTimeField(blank=True, null=True)),
                ('emailed_at', models.DateTimeField(blank=True, null=True)),
                ('alert', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to='alerts.alert')),
                ('membership', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.membership')),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='NotificationPreference',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('listing_rejected', 'Listing change rejected'), ('site_late', "Site late against its directory's usual delay"), ('needs_action_rising', 'Sites needing action rising'), ('rating_falling', 'Average rating falling'), ('low_ratings_rising', 'One- and two-star reviews rising'), ('sync_failed', 'Sync failed'), ('key_rejected', 'Provider key rejected'), ('event_failed', 'Provider event failed')], max_length=32)),
                ('channel', models.CharField(choices=[('off', 'Off'), ('portal', 'In the portal only'), ('email', 'In the portal and by email at once'), ('digest', 'In the portal and in the daily email digest')], max_length=8)),
                ('membership', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.membership')),
                ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
        ),
        migrations.AddIndex(
            model_name='alert',
            index=models.Index(fields=['reseller', 'kind', 'business', '-created_at'], name='alert_kind_business_idx'),
        ),
        migrations.AddConstraint(
            model_name='alert',
            constraint=models.UniqueConstraint(fields=('reseller', 'kind', 'cause'), name='alert_unique_cause'),
        ),
        migrations.AddConstraint(
            model_name='alertrule',
            constraint=models.UniqueConstraint(fields=('reseller', 'kind'), name='alert_rule_unique_kind'),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(fields=['membership', 'read_at', '-created_at'], name='notification_member_idx'),
        ),
        migrations.AddIndex(
            model_name='notification',
            index=models.Index(condition=models.Q(('channel__in', ['email', 'digest']), ('emailed_at__isnull', True)), fields=['channel', 'created_at'], name='notification_unsent_idx'),
        ),
        migrations.AddConstraint(
            model_name='notification',
            constraint=models.UniqueConstraint(fields=('alert', 'membership'), name='notification_unique_member'),
        ),
        migrations.AddConstraint(
            model_name='notificationpreference',
            constraint=models.UniqueConstraint(fields=('membership', 'kind'), name='notification_preference_unique'),
        ),
    ]
