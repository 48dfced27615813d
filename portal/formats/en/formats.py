# English formats of the portal: the locale's own ("N j, Y, P") would write a third way.
# The same as settings.DATETIME_FORMAT / DATE_FORMAT and the `when` / `day` template filters.
DATETIME_FORMAT = "M j, Y, H:i T"
DATE_FORMAT = "M j, Y"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
SHORT_DATE_FORMAT = DATE_FORMAT
