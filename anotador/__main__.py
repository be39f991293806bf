"""``python -m anotador``: the console script (:mod:`anotador.ops.console`)."""

from .ops.console import main

main()
