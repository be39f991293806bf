"""``python -m anotador``: the console script (:mod:`anotador.console`)."""

from .console import main

main()
