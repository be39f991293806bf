"""Operations: the ``anotador`` console script (``console``), the app's commands (``cli``), serving with
gunicorn (``serving``, ``gunicorn_conf``) and the address phones on the LAN open (``lan``)."""
