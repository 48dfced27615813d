"""The history of each business and of the account, one row a day."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0011_reseller_rate_limit_auto_wire_dialect'),
    ]

    operations = [
        migrations.CreateModel(
            name='AccountDay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('locations', models.PositiveIntegerField(default=0, help_text='Current locations counted.')),
                ('reports', models.PositiveIntegerField(default=0, help_text='Of them, those with a status report.')),
                ('total_sites', models.PositiveIntegerField(default=0)),
                ('synced', models.PositiveIntegerField(default=0)),
                ('submitted', models.PositiveIntegerField(default=0)),
                ('need_updates', models.PositiveIntegerField(default=0, help_text='Sites needing action.')),
                ('opted_out', models.PositiveIntegerField(default=0)),
                ('not_connected', models.PositiveIntegerField(default=0)),
                ('needs_action', models.PositiveIntegerField(default=0, help_text='Locations needing action.')),
                ('reviews', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_1', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_2', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_3', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_4', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_5', models.PositiveIntegerField(blank=True, null=True)),
                ('recorded_at', models.DateTimeField(help_text="When the day's figures last changed.")),
                ('competitors', models.PositiveIntegerField(blank=True, help_text='Competitor rows (location x source).', null=True)),
                ('competitor_rating', models.DecimalField(blank=True, decimal_places=2, max_digits=4, null=True)),
                ('competitor_reviews', models.PositiveIntegerField(blank=True, null=True)),
                ('ranking_rating', models.DecimalField(blank=True, decimal_places=2, max_digits=4, null=True)),
                ('ranking_reviews', models.PositiveIntegerField(blank=True, null=True)),
                ('ranking_positive', models.PositiveIntegerField(blank=True, null=True)),
                ('ranking_neutral', models.PositiveIntegerField(blank=True, null=True)),
                ('ranking_negative', models.PositiveIntegerField(blank=True, null=True)),
                ('ai_quota', models.IntegerField(blank=True, null=True)),
                ('ai_themes', models.PositiveIntegerField(blank=True, null=True)),
                ('ai_prompts', models.PositiveIntegerField(blank=True, null=True)),
                ('survey_responses', models.PositiveIntegerField(blank=True, null=True)),
                ('survey_score', models.DecimalField(blank=True, decimal_places=2, max_digits=7, null=True)),
                ('nps_promoters', models.PositiveIntegerField(blank=True, null=True)),
                ('nps_passives', models.PositiveIntegerField(blank=True, null=True)),
                ('nps_detractors', models.PositiveIntegerField(blank=True, null=True)),
                ('reseller', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['day'],
                'constraints': [models.UniqueConstraint(fields=('reseller', 'day'), name='history_account_day_unique')],
            },
        ),
        migrations.CreateModel(
            name='BusinessDay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('locations', models.PositiveIntegerField(default=0, help_text='Current locations counted.')),
                ('reports', models.PositiveIntegerField(default=0, help_text='Of them, those with a status report.')),
                ('total_sites', models.PositiveIntegerField(default=0)),
                ('synced', models.PositiveIntegerField(default=0)),
                ('submitted', models.PositiveIntegerField(default=0)),
                ('need_updates', models.PositiveIntegerField(default=0, help_text='Sites needing action.')),
                ('opted_out', models.PositiveIntegerField(default=0)),
                ('not_connected', models.PositiveIntegerField(default=0)),
                ('needs_action', models.PositiveIntegerField(default=0, help_text='Locations needing action.')),
                ('reviews', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_1', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_2', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_3', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_4', models.PositiveIntegerField(blank=True, null=True)),
                ('rating_5', models.PositiveIntegerField(blank=True, null=True)),
                ('recorded_at', models.DateTimeField(help_text="When the day's figures last changed.")),
                ('business', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.business')),
                ('reseller', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.reseller')),
            ],
            options={
                'ordering': ['business', 'day'],
                'indexes': [models.Index(fields=['reseller', 'day'], name='history_business_day_idx')],
                'constraints': [models.UniqueConstraint(fields=('reseller', 'business', 'day'), name='history_business_day_unique')],
            },
        ),
    ]
