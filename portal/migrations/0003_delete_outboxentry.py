from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0005_alter_listingversion_outbox_entry'),
        ('portal', '0002_outboxentry_in_doubt'),
    ]

    # The model moved to `outbox` with its table; only Django's record of it leaves `portal`.
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(
                    name='OutboxEntry',
                ),
            ],
            database_operations=[],
        ),
    ]
