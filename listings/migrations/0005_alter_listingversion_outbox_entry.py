import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0004_status_report_index_covers_listing_status'),
        ('outbox', '0001_initial'),
    ]

    # The outbox model moved from `portal` to `outbox`; the column and its table stay.
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='listingversion',
                    name='outbox_entry',
                    field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='listing_version', to='outbox.outboxentry'),
                ),
            ],
            database_operations=[],
        ),
    ]
