import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('portal', '0002_outboxentry_in_doubt'),
        ('accounts', '0008_reseller_api_key_origin'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    # The model moved here from `portal`; its table (portal_outboxentry) stays as it is.
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='OutboxEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('listing_create', 'Listing update'), ('media_add', 'Media upload'), ('custom_field_create', 'Custom field'), ('hierarchy_update', 'Hierarchy update'), ('qna_delete_all', 'Q&A deletion'), ('subscribe', 'Webhook subscription'), ('unsubscribe', 'Webhook removal')], max_length=32)),
                        ('payload', models.JSONField(default=dict, help_text='What is sent to the provider.')),
                        ('summary', models.CharField(blank=True, help_text='What the user changed.', max_length=255)),
                        ('state', models.CharField(choices=[('pending', 'Pending'), ('sending', 'Sending'), ('accepted', 'Accepted'), ('rejected', 'Rejected'), ('failed', 'Failed')], db_index=True, default='pending', max_length=16)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('in_doubt', models.BooleanField(default=False, help_text="An earlier send may have reached the provider unseen: the next send reads the provider's state back first.")),
                        ('next_attempt_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('claimed_at', models.DateTimeField(blank=True, null=True)),
                        ('provider_code', models.IntegerField(blank=True, null=True)),
                        ('provider_message', models.TextField(blank=True)),
                        ('provider_reply', models.JSONField(blank=True, null=True)),
                        ('last_error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('business', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='accounts.business')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('reseller', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
                    ],
                    options={
                        'verbose_name': 'outbox entry',
                        'verbose_name_plural': 'outbox',
                        'db_table': 'portal_outboxentry',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['reseller', 'state', 'next_attempt_at'], name='portal_outb_reselle_a877b4_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
