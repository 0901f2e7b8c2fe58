"""Django's database backends as the command path runs them (settings.DATABASES names them)."""
