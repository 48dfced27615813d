from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("portal", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="outboxentry",
            name="in_doubt",
            field=models.BooleanField(
                default=False,
                help_text="An earlier send may have reached the provider unseen: the next "
                "send reads the provider's state back first.",
            ),
        ),
    ]
