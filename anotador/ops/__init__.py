"""Operations: the ``anotador`` console script (``console``), the app's commands (``cli``), serving with
granian (``serving``, ``asgi``, ``gate``) and the address phones on the LAN open (``lan``)."""
